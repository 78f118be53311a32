#!/usr/bin/env python3
"""Tests of gpu_verify_summary.py on a made-up work folder: the parts a run without a GPU cannot
reach (run --check results, PyTorch CUDA-graph numbers next to opsched's, the issue's targets)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = "step\tlabel\tstatus\trc\tseconds\tcommand\tnote\n"


def compare_doc(latencies, floor=None):
    results = []
    for name, ms in latencies.items():
        r = {"scheduler": name, "latency_ms": ms}
        if floor is not None:
            r["floor_ms"] = floor
        results.append(r)
    return {"model": "m", "batch": 1, "device": "cuda:0", "results": results}


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = os.path.join(self.tmp.name, "work")
        self.out = os.path.join(self.tmp.name, "out")
        os.makedirs(os.path.join(self.work, "raw"))
        os.makedirs(os.path.join(self.work, "state"))
        self.rows = []

    def tearDown(self):
        self.tmp.cleanup()

    def add(self, step, label, status, rc, stdout="", note=""):
        self.rows.append(f"{step}\t{label}\t{status}\t{rc}\t1.00\topsched-cli x\t{note}\n")
        with open(os.path.join(self.work, "raw", label + ".out"), "w") as f:
            f.write(stdout)

    def summarize(self, steps="check compare1 pytorch search"):
        with open(os.path.join(self.work, "commands.tsv"), "w") as f:
            f.write(HEADER + "".join(self.rows))
        subprocess.run([sys.executable, os.path.join(HERE, "gpu_verify_summary.py"), "--work", self.work,
                        "--out", self.out, "--steps", steps, "--device", "cuda:0"], check=True)
        with open(os.path.join(self.out, "summary.txt")) as f:
            text = f.read()
        with open(os.path.join(self.out, "results.json")) as f:
            return text, json.load(f)

    def test_check_table_shows_each_scheduler_and_the_worst_relative_error(self):
        run_json = json.dumps({"outputs": [{"name": "output", "max_abs_error": 1e-5, "max_rel_error": 2.5e-4,
                                            "scaled_error": 3e-6}]})
        self.add("check", "check.googlenet.sequential", "ok", 0, run_json)
        self.add("check", "check.googlenet.ios", "fail", 1, "{}", "output: mismatch")
        self.add("check", "check.resnet50.sequential", "timeout", 124)
        text, results = self.summarize()
        self.assertIn("1/3 match", text)
        self.assertRegex(text, r"googlenet\s+match 3\.0e-06 \(2\.5e-04\)\s+MISMATCH/FAIL")
        # TF32-on runs: a table of their own, not counted in the TF32-off bar.
        self.add("check", "tf32.googlenet.ios", "fail", 1, json.dumps({"outputs": [{"scaled_error": 0.02}]}))
        text, results = self.summarize()
        self.assertIn("1/3 match", text)
        self.assertRegex(text, r"TF32 on .*0/1 match\n(.*\n){2}googlenet\s+MISMATCH/FAIL 2\.0e-02")
        self.assertEqual(results["check_tf32"][0]["scaled_error"], 0.02)
        self.assertRegex(text, r"resnet50\s+TIMEOUT")
        check = {(c["model"], c["scheduler"]): c for c in results["check"]}
        self.assertAlmostEqual(check[("googlenet", "sequential")]["max_rel_error"], 2.5e-4)
        self.assertIn("commands that did not succeed", text)

    def test_gpu_tests_table_counts_what_googletest_printed(self):
        self.add("tests", "tests.tst_cuda_executor", "ok", 0,
                 "[==========] 27 tests from 4 test suites ran. (953 ms total)\n[  PASSED  ] 27 tests.\n")
        self.add("tests", "tests.tst_cuda_zoo", "fail", 1,
                 "[  FAILED  ] Schedulers/ZooOnCuda.MatchesTheCpuUnderThePlan/nasnet_a_nimble_b1\n"
                 "[==========] 28 tests from 2 test suites ran.\n[  PASSED  ] 26 tests.\n"
                 "[  SKIPPED ] 1 test, listed below:\n[  FAILED  ] 1 test, listed below:\n")
        text, results = self.summarize()
        self.assertIn("GPU tests (GoogleTest's counts; skipped tests are not passes): 53 passed, 1 failed, 1 skipped", text)
        self.assertRegex(text, r"tst_cuda_zoo\s+fail\s+26\s+1\s+1\s+1\.00\s+Schedulers/ZooOnCuda\.MatchesTheCpuUnderThePlan/nasnet_a_nimble_b1")
        zoo = [t for t in results["tests"] if t["binary"] == "tst_cuda_zoo"][0]
        self.assertEqual(zoo["failures"], ["Schedulers/ZooOnCuda.MatchesTheCpuUnderThePlan/nasnet_a_nimble_b1"])

    def test_latency_rows_join_pytorch_and_judge_the_targets(self):
        self.add("compare1", "compare1.tv_googlenet", "ok", 0,
                 json.dumps(compare_doc({"sequential": 1.2, "ios": 0.5, "nimble": 0.6}, floor=0.45)))
        self.add("compare1", "compare1.tv_inception_v3", "ok", 0,
                 json.dumps(compare_doc({"sequential": 3.0, "ios": 2.0})))
        self.add("compare1", "compare1.nasnet_a", "timeout", 124, "", "killed after 200s")
        with open(os.path.join(self.work, "pytorch.json"), "w") as f:
            json.dump({"torch": "2.11", "device_name": "H100", "results": [
                {"model": "googlenet", "batch": 1, "mode": "eager", "median_ms": 2.0, "p10_ms": 1.9, "p90_ms": 2.1},
                {"model": "googlenet", "batch": 1, "mode": "cuda_graph", "median_ms": 1.0, "p10_ms": 0.9, "p90_ms": 1.1},
                {"model": "inception_v3", "batch": 1, "mode": "cuda_graph", "median_ms": 2.5, "p10_ms": 2.4, "p90_ms": 2.6},
                {"model": "googlenet", "batch": 16, "mode": "cuda_graph", "median_ms": 9.0}]}, f)
        text, results = self.summarize()
        # googlenet: best ios 0.5 ms, PyTorch graph 1.0 ms -> 2.00x (target 1.5x met); floor 0.45 -> 1.11 (met).
        self.assertRegex(text, r"tv_googlenet\s+1\s+1\.200\s+-\s+-\s+-\s+0\.500\s+0\.600\s+-\s+ios\s+0\.450\s+1\.11\s+2\.000\s+1\.000\s+2\.00")
        self.assertIn("googlenet batch 1: opsched best (ios) 2.00x faster than PyTorch CUDA graph (target >= 1.5x): met", text)
        self.assertIn("tv_googlenet batch 1: best / critical-path floor = 1.11 (target <= 1.15): met", text)
        # inception_v3: 2.5 / 2.0 = 1.25x: not met; no floor in its JSON, so no floor verdict.
        self.assertIn("inception_v3 batch 1: opsched best (ios) 1.25x faster than PyTorch CUDA graph (target >= 1.5x): NOT met", text)
        self.assertNotIn("tv_inception_v3 batch 1: best / critical-path floor", text)
        self.assertRegex(text, r"nasnet_a\s+1\s+-.*\(timeout: killed after 200s\)")
        self.assertEqual(len(results["compare"]), 3)

    def test_search_times_against_the_targets_and_steps_left(self):
        self.add("search", "search.inception_v3", "ok", 0,
                 "latency      1.234 ms\nsearch       3.500 s, 1063 states, 5000 transitions\n")
        self.add("search", "search.nasnet_a", "ok", 0, "latency      9.000 ms\nsearch       150.0 s, 24328 states, 1 transitions\n")
        open(os.path.join(self.work, "state", "search.done"), "w").close()
        text, _ = self.summarize(steps="search compare16")
        self.assertIn("IOS search inception_v3 (cuda:0, r=3 s=8, cold cache): 3.5 s (target <= 5 s): met", text)
        self.assertIn("IOS search nasnet_a (cuda:0, r=3 s=8, cold cache): 150.0 s (target <= 120 s): NOT met", text)
        self.assertIn("steps NOT done: compare16", text)

    def test_steps_cut_by_the_budget_are_listed_not_parsed(self):
        self.add("devices", "devices", "ok", 0, "cuda runtime 13.0")
        open(os.path.join(self.work, "state", "devices.done"), "w").close()
        for step in ("check", "search", "compare1", "compare16", "calibrate"):
            self.rows.append(f"{step}\t-\tnot-run\t\t0\t\tout of overall budget (--budget 45)\n")
        text, _ = self.summarize(steps="devices check search compare1 compare16 calibrate")
        self.assertIn("steps NOT done: check search compare1 compare16 calibrate", text)
        self.assertIn("run --check, TF32 off: not run", text)
        self.assertNotIn("could not read", text)
        self.assertRegex(text, r"compare16\s+-\s+not-run\s+0\s+out of overall budget")

    def test_a_resumed_run_counts_the_latest_attempt(self):
        self.add("check", "check.googlenet.ios", "usage", 2, "", "not expected")
        self.add("check", "check.googlenet.ios", "ok", 0, "{}")
        text, _ = self.summarize()
        self.assertIn("1/1 match", text)
        self.assertNotIn("did not succeed", text)


if __name__ == "__main__":
    unittest.main()
