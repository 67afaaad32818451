# Closed-loop comparison of `roofline simulate` with the aiconfigurator silicon sweeps
# (/work/shared/calibration/serving-aiconfigurator.csv: TTFT and TPOT per concurrency), for
# docs/simulate.md#latency-under-load. Environment: K (requests = K x users, default 3), W
# (warm-up = W x users, default 1), ROOFLINE_DATA (profiles).
# Usage: sim-vs-aiconfigurator.py ROOFLINE OUT.csv [rows per group]; summarise with --summary OUT.csv
import csv, subprocess, sys, os, statistics, tempfile, collections

if sys.argv[1] == '--summary':
    rows=list(csv.DictReader(open(sys.argv[2])))
    def err(a,b): return (float(b)-float(a))/float(a)
    g=collections.defaultdict(list)
    for r in rows:
        u=int(r['users']); band='1-10' if u<=10 else ('11-64' if u<=64 else '65-512')
        be={'trtllm':'tensorrt-llm','vllm':'vllm','sglang':'sglang (as vllm)'}[r['backend']]
        g[(be,band)].append(r); g[(be,'all')].append(r); g[('all',band)].append(r); g[('all','all')].append(r)
    print("| engine | users | rows | TTFT median abs error | TTFT median signed | TPOT abs | TPOT signed | throughput abs | throughput signed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in sorted(g):
        rs=g[k]
        e1=[err(r['ttft_ms'],r['sim_ttft_ms']) for r in rs]; e2=[err(r['tpot_ms'],r['sim_tpot_ms']) for r in rs]; e3=[err(r['tok_s'],r['sim_tok_s']) for r in rs]
        print("| %s | %s | %d | %.0f%% | %+.0f%% | %.0f%% | %+.0f%% | %.0f%% | %+.0f%% |"%(k[0],k[1],len(rs),100*statistics.median(map(abs,e1)),100*statistics.median(e1),100*statistics.median(map(abs,e2)),100*statistics.median(e2),100*statistics.median(map(abs,e3)),100*statistics.median(e3)))
    sys.exit(0)
ROOF, OUT = sys.argv[1], sys.argv[2]
PER = int(sys.argv[3]) if len(sys.argv) > 3 else 6
MODELS = {'meta-llama/Llama-3.1-8B-Instruct': 'llama-3.1-8b', 'meta-llama/Llama-3.1-70B': 'llama-3.1-70b'}
HW = {'h100_sxm': 'h100-sxm', 'h200_sxm': 'h200', 'b200_sxm': 'b200'}
ENG = {'trtllm': 'tensorrt-llm', 'vllm': 'vllm', 'sglang': 'vllm'}
rows = [r for r in csv.DictReader(open(os.environ.get('AIC_CSV', '/work/shared/calibration/serving-aiconfigurator.csv')))
        if r['model_path'] in MODELS and r['system'] in HW and r['mode'] == 'agg'
        and r['attention_dp_size'] in ('', '1') and r['pp_size'] in ('', '1')]
groups = {}
for r in rows:
    groups.setdefault((r['model_path'], r['system'], r['backend'], r['isl'], r['osl'], r['tp_size']), []).append(r)
pick = []
for k, g in sorted(groups.items()):
    g.sort(key=lambda r: int(r['batch_size']))
    step = max(1, len(g) // PER)
    pick += g[::step][:PER]
out = open(OUT, 'w')
w = csv.writer(out)
w.writerow(['id', 'backend', 'system', 'model', 'tp', 'isl', 'osl', 'users', 'ttft_ms', 'sim_ttft_ms', 'tpot_ms', 'sim_tpot_ms', 'tok_s', 'sim_tok_s'])
for r in pick:
    users = int(r['batch_size'])
    tp = int(r['tp_size'] or 1)
    prec = r['precision']
    wt = 'fp8' if 'fp8' in prec else ('fp4' if 'fp4' in prec else 'bf16')
    kv = 'fp8' if wt in ('fp8', 'fp4') else 'bf16'
    isl, osl = int(r['isl']), int(r['osl'])
    n = max(int(os.environ.get("K","3")) * users, 60)
    # vLLM's asynchronous scheduling is the default from 0.14.0 (engine_profiles/vllm.yaml
    # async_scheduling); a row of an older stated version runs without it
    sched = 'chunked'
    ver = r.get('backend_version', '')
    if r['backend'] == 'vllm' and ver[:1].isdigit():
        if tuple(int(x) for x in ver.split('.')[:2]) < (0, 14):
            sched = 'chunked, async_scheduling: false'
    y = f"""name: {r['id']}
model: {MODELS[r['model_path']]}
hardware: {{id: {HW[r['system']]}, count: {tp}, tp: {tp}}}
dtypes: {{weights: {wt}, kv: {kv}}}
engine: {ENG[r['backend']]}
scheduler: {{policy: {sched}}}
arrivals: {{process: closed, users: {users}, think_time: 0 s}}
lengths: {{prompt: {isl}, output: {osl}}}
run: {{requests: {n}, warmup_requests: {int(os.environ.get("W","1")) * users}, seed: 1}}
"""
    with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as f:
        f.write(y)
    p = subprocess.run([ROOF, 'simulate', '--scenario', f.name, '-o', 'csv'], capture_output=True, text=True)
    os.unlink(f.name)
    if p.returncode != 0:
        print('skip', r['id'], p.stderr.strip()[:200], file=sys.stderr)
        continue
    d = list(csv.DictReader(p.stdout.splitlines()))[0]
    ttft, tpot = float(r['silicon_ttft_ms']), float(r['silicon_tpot_ms'])
    # measured throughput of a closed loop: users x osl / (ttft + (osl - 1) tpot)
    tok = users * osl / ((ttft + (osl - 1) * tpot) / 1000.0)
    sim_tok = d['arrivals_output_tokens_per_s'] or d['output_tokens_per_s']
    w.writerow([r['id'], r['backend'], r['system'], MODELS[r['model_path']], tp, isl, osl, users,
                ttft, 1000 * float(d['ttft_mean_s']), tpot, 1000 * float(d['tpot_mean_s']), tok, sim_tok])
    out.flush()
