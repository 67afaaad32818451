# Closed-loop comparison of `roofline simulate` with public serving benchmark results
# (calibration/public-serving.csv), for docs/simulate.md#against-public-benchmark-results. The rows
# are a check only: nothing is fitted to them. Each row runs as a closed loop with the row's
# concurrency, fixed lengths, the row's engine profile (SGLang would run as vllm) and its
# defaults, chunked prefill, no warm-up (a benchmark client counts the start: InferenceX's sends
# 2 C warm-up requests and waits for all of them before its timed run, so that run too starts with
# C prompts at once on an idle server, docs/simulate.md#inferencexs-benchmark-client-issue-13):
#   latency  vLLM benchmark_latency: N users in lock step, 3 rounds (3 N requests)
#   offline  vLLM benchmark_throughput: all prompts at once, one round (N requests)
#   serve    vllm bench serve --max-concurrency C: 20 C requests
#   sweep    a concurrency sweep whose request count is not given: 3 C requests
# The engine is the one that ran, at its version: vLLM before 0.8 (and the one row set of
# unstated version, oci-405b, published 2024-10-10, before vLLM V1's first release of 2025-01-27)
# ran vLLM's V0 engine, `engine: vllm-v0` (its defaults: 256 sequences, chunked prefill only for
# models of more than 32K context, then 512 tokens per step; its host work per sampled token);
# later versions run `engine: vllm` (V1: chunked prefill always; before 0.14 without asynchronous
# scheduling, `async_scheduling: false`). A row may also name `vllm-v0`
# itself (calibration/public-sweeps.csv does for its vLLM 0.7 rows): the same V0 rules.
# Rows of calibration/public-sweeps.csv may also name the engine's MoE kernel their recipe chose
# (moe_kernel: marlin for vLLM's VLLM_MXFP4_USE_MARLIN=1, the scenario's kernels.moe).
# Rows of calibration/public-sweeps.csv may also state the prompts per run (requests), the client's
# --random-range-ratio r (lengths uniform in [floor(r L), L]) and server arguments (max_batch,
# max_tokens, max_model_len, SGLang's recv_interval, max_prefill_tokens and mem_fraction_static);
# empty = the mode's rounds, fixed lengths, the engine's defaults. SGLang's --mem-fraction-static
# f becomes the scenario's hardware.reserve: SGLang's KV pool is what the weights leave of f x the
# memory free when it starts (ModelRunner.profile_max_num_token; SGLANG_FREE_AT_START_GB below,
# else the hardware profile's memory.capacity), so the reserve beside the profile's capacity is
# capacity - f x that memory (docs/simulate.md#sglangs-kv-pool). A row whose client is `inferencex`
# runs on that client's own draws, request i with the i-th prompt and output length of numpy's
# legacy generator at seed 0 (scripts/inferencex_client.py; the published input/output token
# ratios match them exactly).
# Errors are (simulated - public) / public; ITL is compared with the simulated mean TPOT, ttft_p50_ms
# (a row's median TTFT, where the source gives it) with the simulated TTFT p50, e2e_p99_s
# (a row's P99 end-to-end latency, where the source gives it) with the simulated e2e P99.
# Environment: ROOFLINE_DATA (profiles); ACT (activation format for every row, a what-if:
# ACT=bf16 runs the GEMMs at the 16-bit rate, as a weight-only fp8 kernel would). Python 3 standard
# library only (and scripts/inferencex_client.py beside it).
# Usage: sim-vs-public.py ROOFLINE [CSV...]   (default: public-serving.csv and public-sweeps.csv;
# prints a Markdown table, the medians by concurrency band and the medians by source)
import csv, os, statistics, subprocess, sys, tempfile

import inferencex_client

ROOF = sys.argv[1]
CAL = os.path.join(os.path.dirname(__file__), '..', 'calibration')
SRCS = sys.argv[2:] or [os.path.join(CAL, 'public-serving.csv'), os.path.join(CAL, 'public-sweeps.csv')]
ACT = (', act: ' + os.environ['ACT']) if os.environ.get('ACT') else ''
ROUNDS = {'latency': 3, 'offline': 1, 'serve': 20, 'sweep': 3}


def max_context(model):
    path = os.path.join(os.path.dirname(__file__), '..', 'model_profiles', model + '.yaml')
    for line in open(path):
        if line.startswith('max_position_embeddings:'):
            return int(line.split(':')[1])
    return 0


def capacity_gb(hw):
    """the memory the simulator sizes the device's pool from, in GB: the profile's
    memory.reported where it has one, else memory.capacity (hw_memory_bytes)"""
    data = os.environ.get('ROOFLINE_DATA') or os.path.join(os.path.dirname(__file__), '..')
    path = os.path.join(data, 'hardware_profiles', hw + '.yaml')
    units = {'B': 1e-9, 'GB': 1.0, 'GiB': 2**30 / 1e9, 'MiB': 2**20 / 1e9, 'TB': 1e3}
    found = {}
    for line in open(path):
        key = line.strip().split(':')[0]
        if key in ('capacity', 'reported') and line.startswith('  ') and key not in found:
            v, u = line.split(':')[1].split()
            found[key] = float(v) * units[u]
    if found:
        return found.get('reported', found.get('capacity'))
    raise ValueError('no memory.capacity in ' + path)


# The memory SGLang finds free when it starts, after the CUDA context, NCCL and its communicators
# (ModelRunner.init_torch_distributed's min_per_gpu_memory, the total_gpu_memory that
# profile_max_num_token multiplies by 1 - mem_fraction_static), in GB, where a log gives it: H200
# at tp 8, 12.25 + 125.65 = 137.90 GiB ('Load weight end. ... avail mem=12.25 GB, mem
# usage=125.65 GB', SGLang's GB being GiB; SemiAnalysisAI/InferenceX issue #2128, 8 x H200, tp 8;
# 138.09 GiB 'Load weight begin. avail mem' in sgl-project/sglang issue #24607, 2 x 8 x H200).
# Elsewhere the profile's capacity stands for it. docs/simulate.md#sglangs-kv-pool
SGLANG_FREE_AT_START_GB = {'h200': 137.90 * 2**30 / 1e9}


def hardware(r):
    extra = ''
    if r.get('mem_fraction_static'):
        # SGLang's pool: what the weights leave of mem_fraction_static x the memory free at its
        # start; as a reserve beside the profile's capacity: capacity - f x free at start
        cap = capacity_gb(r['hardware'])
        free0 = SGLANG_FREE_AT_START_GB.get(r['hardware'], cap)
        extra = ', reserve: %.4g GB' % max(0.0, cap - float(r['mem_fraction_static']) * free0)
    if r.get('ep'):
        # the experts dealt whole over ep groups of the tp devices (--ep-size, --ep_size)
        extra += ', ep: %s' % r['ep']
    if r.get('attn_dp'):
        # each of attn_dp ranks of the tp devices attends its own sequences (--enable-dp-attention)
        extra += ', attn_dp: %s' % r['attn_dp']
    return '{id: %s, count: %s, tp: %s%s}' % (r['hardware'], r['count'], r['tp'], extra)


def engine_of(r):
    """the engine profile and the scheduler policy of the run that produced the row"""
    if r['engine'] == 'sglang' and r['source'] == 'dstack-r1' and r['hardware'] == 'h200':
        # SGLang's overlap scheduler (engine_profiles/sglang.yaml async_scheduling) is the default;
        # this run served with --enable-dp-attention (the source's launch line), and the early v0.4
        # ServerArgs turns the overlap scheduler off under DP attention (docs/simulate.md, latency
        # under load: mechanisms checked)
        return 'sglang', 'chunked, async_scheduling: false'
    if r['engine'] not in ('vllm', 'vllm-v0') or os.environ.get('ENGINE_AS_CSV'):
        return r['engine'], 'chunked'
    v = r['engine_version']
    v0 = r['engine'] == 'vllm-v0' or v == 'unstated' or (v.startswith('0.') and int(v.split('.')[1]) < 8)
    if not v0:
        # V1's asynchronous scheduling (engine_profiles/vllm.yaml async_scheduling) is the default
        # from 0.14.0 on; a row of an earlier V1 release runs without it (a version stated as a
        # lower bound, '>=0.10.1', keeps the profile's default)
        if v[:1].isdigit() and v.startswith('0.') and int(v.split('.')[1]) < 14:
            return 'vllm', 'chunked, async_scheduling: false'
        return 'vllm', 'chunked'
    # V0 (EngineArgs.create_engine_config): chunked prefill by default only above 32K of context
    # (the served model length: --max-model-len when the source gives it)
    ctx = int(r['max_model_len']) if r.get('max_model_len') else max_context(r['model'])
    return 'vllm-v0', 'chunked' if ctx > 32768 else 'continuous'


def length(r, key):
    """the scenario's length: fixed, or uniform in [floor(r L), L] for a client range ratio r < 1"""
    n = int(r[key])
    ratio = float(r['range_ratio']) if r.get('range_ratio') else 1.0
    if ratio >= 1.0:
        return str(n)
    return '{dist: uniform, min: %d, max: %d}' % (int(ratio * n), n)


def scheduler(r, policy):
    extra = ''
    if r.get('max_batch'):
        extra += ', max_batch: ' + r['max_batch']
    if r.get('max_tokens'):
        extra += ', max_tokens_per_step: ' + r['max_tokens']
    if r.get('recv_interval'):
        extra += ', recv_interval: ' + r['recv_interval']
    if r.get('max_prefill_tokens'):
        extra += ', max_prefill_tokens: ' + r['max_prefill_tokens']
    return '{policy: %s%s}' % (policy, extra)


def kernels(r):
    """the engine's kernel choice the run's recipe made: moe_kernel marlin = vLLM's
    VLLM_MXFP4_USE_MARLIN=1 (scenario kernels.moe)"""
    return 'kernels: {moe: %s}\n' % r['moe_kernel'] if r.get('moe_kernel') else ''


def client_lengths(r, n):
    """the scenario's lengths: the client's own draws, request by request, where the row names a
    client whose draws are known (a trace of n rows, written to a file removed after the run), else
    the mode's fixed or uniform lengths"""
    if r.get('client') != 'inferencex':
        return '{prompt: %s, output: %s}' % (length(r, 'isl'), length(r, 'osl')), None
    ratio = float(r['range_ratio']) if r.get('range_ratio') else 1.0
    prompts, outputs = inferencex_client.lengths(int(r['isl']), int(r['osl']), n, ratio)
    with tempfile.NamedTemporaryFile('w', suffix='.csv', delete=False) as f:
        f.write('arrival_s,prompt,output\n')
        f.writelines('0,%d,%d\n' % po for po in zip(prompts, outputs))
    return '{prompt: trace, output: trace, trace: %s}' % f.name, f.name


def simulate(r, users):
    n = int(r['requests']) if r.get('requests') and users == int(r['concurrency']) else ROUNDS[r['mode']] * users
    engine, policy = engine_of(r)
    lengths, trace = client_lengths(r, n)
    y = f"""name: {r['source']} {users} users
model: {r['model']}
hardware: {hardware(r)}
dtypes: {{weights: {r['weights']}, kv: {r['kv']}{ACT}}}
engine: {engine}
{kernels(r)}scheduler: {scheduler(r, policy)}
arrivals: {{process: closed, users: {users}, think_time: 0 s}}
lengths: {lengths}
run: {{requests: {n}, warmup_requests: 0, seed: 1}}
"""
    with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as f:
        f.write(y)
    p = subprocess.run(['nice', ROOF, 'simulate', '--scenario', f.name, '-o', 'csv'], capture_output=True, text=True)
    os.unlink(f.name)
    if trace:
        os.unlink(trace)
    if p.returncode != 0:
        skipped.append('%s, %d users: %s' % (r['source'], users, p.stderr.strip().split(': error: ')[-1][:200]))
        return None
    return list(csv.DictReader(p.stdout.splitlines()))[0]


rows = [row for src in SRCS for row in csv.DictReader(line for line in open(src) if not line.startswith('#'))]
errs = {}
by_source = {}
skipped = []


def record(metric, band, e):
    errs.setdefault((metric, band), []).append(e)
    errs.setdefault((metric, 'all'), []).append(e)


def cell(pub, sim):
    return '%g / %.4g (%+.0f%%)' % (pub, sim, 100 * (sim - pub) / pub)


print('| source | hardware | model | isl/osl | users | mode | tok/s public / sim (error) | TTFT ms | TTFT p50 ms | ITL ms | ratio to 1 user | e2e p99 s |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
for r in rows:
    c = int(r['concurrency'])
    d = simulate(r, c)
    if d is None:
        continue
    # saturation: 1000 or more users, past every engine's batch (the max-throughput runs)
    band = 'saturation' if c >= 1000 else ('1-10' if c <= 10 else ('11-64' if c <= 64 else '65+'))
    sim = {'tok_s': float(d['output_tokens_per_s']), 'ttft_ms': 1000 * float(d['ttft_mean_s']),
           'ttft_p50_ms': 1000 * float(d['ttft_p50_s']),
           'itl_ms': 1000 * float(d['tpot_mean_s']), 'e2e_p99_s': float(d['e2e_p99_s'])}
    if r['ratio_c1']:
        sim['ratio_c1'] = sim['tok_s'] / float(simulate(r, 1)['output_tokens_per_s'])
    cells = []
    for m in ('tok_s', 'ttft_ms', 'ttft_p50_ms', 'itl_ms', 'ratio_c1', 'e2e_p99_s'):
        if r.get(m):
            pub = float(r[m])
            record(m, band, (sim[m] - pub) / pub)
            by_source.setdefault((m, r['source']), []).append((sim[m] - pub) / pub)
            cells.append(cell(pub, sim[m]))
        else:
            cells.append('-')
    print('| %s | %s x%s tp%s | %s %s | %s/%s | %d | %s | %s |' % (
        r['source'], r['hardware'], r['count'], r['tp'], r['model'], r['weights'], r['isl'], r['osl'],
        c, r['mode'], ' | '.join(cells)))
print()
print('| metric | users | rows | median abs error | median signed error |')
print('|---|---|---|---|---|')
order = {'1-10': 0, '11-64': 1, '65+': 2, 'saturation': 3, 'all': 4}
for k in sorted(errs, key=lambda k: (k[0], order[k[1]])):
    v = errs[k]
    print('| %s | %s | %d | %.0f%% | %+.0f%% |' % (k[0], k[1], len(v), 100 * statistics.median(map(abs, v)), 100 * statistics.median(v)))
print()
print('| metric | source | rows | median abs error | median signed error |')
print('|---|---|---|---|---|')
for k in sorted(by_source):
    v = by_source[k]
    print('| %s | %s | %d | %.0f%% | %+.0f%% |' % (k[0], k[1], len(v), 100 * statistics.median(map(abs, v)), 100 * statistics.median(v)))
if skipped:
    print()
    print('Skipped (the simulator refuses the configuration):')
    for x in skipped:
        print('* ' + x)
