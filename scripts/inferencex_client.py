# The prompt and output lengths InferenceX's benchmark client draws, request by request, for
# scripts/sim-vs-public.py (docs/simulate.md#inferencexs-benchmark-client-issue-13).
# InferenceX's utils/bench_serving/benchmark_serving.py (SemiAnalysisAI/InferenceX, versions
# d39a07f and 086eabb; benchmarks/benchmark_lib.sh leaves --seed at its default 0):
#   main:                  np.random.seed(args.seed)                  (seed 0)
#   sample_random_requests: input_lens  = np.random.randint(int(ISL * r), ISL + 1, size=N)
#                           output_lens = np.random.randint(int(OSL * r), OSL + 1, size=N)
# and request i of the run is sent with input_lens[i] prompt tokens and max_tokens
# output_lens[i] (--ignore-eos). numpy's legacy RandomState seeds MT19937 with init_genrand
# (mt19937_seed) and draws a bounded integer by masking one 32-bit output to the smallest
# 2^k - 1 >= (high - 1 - low) and rejecting values above it (random_bounded_uint64_fill with
# use_masked, a range under 2^32; a range of 0 draws nothing). Reproduced here with the
# standard library: Python's random module is the same MT19937, given numpy's state.
# Usage: inferencex_client.py ISL OSL N [RATIO]   (prints N, the sums and means of both)
import random
import sys


def numpy_legacy_rng(seed):
    """a random.Random whose getrandbits(32) gives numpy.random.RandomState(seed)'s 32-bit outputs"""
    mt = [seed & 0xffffffff]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xffffffff)
    g = random.Random()
    g.setstate((3, tuple(mt) + (624,), None))
    return g


def randint(g, low, high, n):
    """numpy's legacy randint(low, high, size=n) (high exclusive, default int64) from g's stream"""
    rng = high - 1 - low
    if rng == 0:
        return [low] * n
    mask = rng
    for s in (1, 2, 4, 8, 16):
        mask |= mask >> s
    out = []
    for _ in range(n):
        v = g.getrandbits(32) & mask
        while v > rng:
            v = g.getrandbits(32) & mask
        out.append(low + v)
    return out


def lengths(isl, osl, n, ratio, seed=0):
    """(prompt lengths, output lengths) of the n requests, in the order the client sends them"""
    g = numpy_legacy_rng(seed)
    prompts = randint(g, int(isl * ratio), isl + 1, n)
    outputs = randint(g, int(osl * ratio), osl + 1, n)
    return prompts, outputs


if __name__ == '__main__':
    isl, osl, n = (int(a) for a in sys.argv[1:4])
    ratio = float(sys.argv[4]) if len(sys.argv) > 4 else 0.8
    p, o = lengths(isl, osl, n, ratio)
    print('requests %d prompt sum %d mean %.4f output sum %d mean %.4f' % (n, sum(p), sum(p) / n, sum(o), sum(o) / n))
