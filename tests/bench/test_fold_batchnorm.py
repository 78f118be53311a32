#!/usr/bin/env python3
"""BatchNorm folding of tests/data/export_torchvision.py (what the like-for-like GPU record's PyTorch
side runs): every BatchNorm of the torchvision networks folds into its convolution and the folded
module computes what the unfolded one does. Needs torch and torchvision; exit 77 (skipped) without them."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "data"))
sys.path.insert(0, HERE)

try:
    import torch
    import torchvision  # noqa: F401
    import export_torchvision as tv
    import bench_pytorch_gpu as bench
except ImportError as e:  # pragma: no cover - machines without PyTorch
    print(f"skipped: {e}")
    sys.exit(77)


class FoldTest(unittest.TestCase):
    def check_network(self, name):
        torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
        unfolded, x = tv.build(name, 1)
        folded, x2 = tv.build(name, 1, fold_bn=True)
        self.assertTrue(torch.equal(x, x2))
        self.assertGreater(len(tv.batchnorms(unfolded)), 0)
        self.assertEqual(tv.batchnorms(folded), [])
        with torch.no_grad():
            err = bench.scaled_error(torch, folded(x), unfolded(x))
        self.assertLess(err, bench.FOLD_TOLERANCE, name)
        # The weights changed (folded), and building again gives the same ones (the fingerprint).
        self.assertNotEqual(bench.fingerprint(folded), bench.fingerprint(unfolded))
        self.assertTrue(bench.same_fingerprint(bench.fingerprint(tv.build(name, 1, fold_bn=True)[0]),
                                               bench.fingerprint(folded)))

    def test_googlenet(self):  # BasicConv2d: conv / bn attributes
        self.check_network("googlenet")

    def test_resnet50(self):  # convK / bnK, and the downsample Sequential
        self.check_network("resnet50")

    def test_mobilenet_v2(self):  # Sequential (Conv2d, BatchNorm2d, ReLU6) and a bare Conv2d + BatchNorm2d
        self.check_network("mobilenet_v2")

    def test_a_batchnorm_without_a_convolution_is_refused(self):
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm2d(4)).eval()
        with self.assertRaisesRegex(ValueError, "no convolution to fold into"):
            tv.fold_batchnorm(model)
        with self.assertRaisesRegex(ValueError, "eval mode"):
            tv.fold_batchnorm(torch.nn.Sequential(torch.nn.Conv2d(3, 4, 1), torch.nn.BatchNorm2d(4)))

    def test_bench_arguments_and_statistics(self):
        args = bench.parse_args(["--models", "googlenet", "--batch", "1,16", "--device", "cpu"])  # old form: bench
        self.assertEqual((args.command, args.batches, args.layout_list), ("bench", [1, 16], ["nchw", "channels_last"]))
        with self.assertRaises(SystemExit):
            bench.parse_args(["bench", "--modes", "eager,jit"])
        s = bench.summarize([1.0, 2.0, 3.0, 4.0, 5.0])
        self.assertEqual((s["median_ms"], s["p10_ms"], s["p90_ms"], s["runs"]), (3.0, 1.4, 4.6, 5))
        self.assertAlmostEqual(s["spread"], (4.6 - 1.4) / 3.0)


    def test_bench_compile_path_with_a_stand_in_for_torch_compile(self):
        """The torch.compile modes' code (timing, compile time, errors against eager, the time budget)
        with an identity stand-in, so it runs on torch 1.13 and on the CPU."""
        import io
        import json
        import tempfile
        from contextlib import redirect_stdout
        calls = []
        had = hasattr(torch, "compile")
        old = getattr(torch, "compile", None)
        torch.compile = lambda model, **kw: calls.append(kw) or model
        try:
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "pt.json")
                argv = ["bench", "--models", "squeezenet1_1", "--batch", "1", "--device", "cpu", "--layouts", "nchw",
                        "--warmup", "0", "--iters", "1", "--cpu-compile", "--json-out", out]
                with redirect_stdout(io.StringIO()):
                    self.assertEqual(bench.main(argv + ["--autotune-factor", "1e9", "--time-budget", "600"]), 0)
                with open(out) as f:
                    doc = json.load(f)
        finally:
            if had:
                torch.compile = old
            else:
                del torch.compile
        by_mode = {r["mode"]: r for r in doc["results"]}
        self.assertEqual(calls[0], {"mode": "reduce-overhead", "dynamic": False})
        compiled = by_mode["compile"]
        self.assertIn("compile_s", compiled)
        self.assertGreater(compiled["median_ms"], 0)
        self.assertEqual(compiled["scaled_diff_vs_eager"], 0.0)
        # max-autotune is expected to take 1e9 x the reduce-overhead compile: more than the budget.
        self.assertIn("time budget", by_mode["max-autotune"]["skipped"])
        self.assertEqual(len(calls), 1)

if __name__ == "__main__":
    unittest.main()
