#!/usr/bin/env python3
"""Tests of gpu_verify_summary.py on a made-up work folder: the parts a run without a GPU cannot
reach (run --check results, PyTorch CUDA-graph numbers next to opsched's, the issue's targets)."""
import csv
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
        # The timed TF32-on runs (step opsched): their errors in a table of their own, not in the TF32-off count.
        self.add("opsched", "lat.googlenet_b1.ios", "ok", 0,
                 json.dumps({"latency_ms": 0.5, "p10_ms": 0.49, "p90_ms": 0.52, "repeat": 100,
                             "outputs": [{"scaled_error": 0.03}], "check": {"pass": False}}))
        text, results = self.summarize()
        self.assertIn("1/3 match", text)
        self.assertRegex(text, r"TF32 on, opsched vs PyTorch's TF32 output.*\n(.*\n){2}googlenet\s+1\s+-\s+-\s+-\s+-\s+3\.0e-02 >bar")
        self.assertEqual(results["opsched"]["googlenet_b1"]["ios"]["tf32_error"], 0.03)
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
        self.assertRegex(text, r"run --check, TF32 off[^\n]*: not run")
        self.assertNotIn("could not read", text)
        self.assertRegex(text, r"compare16\s+-\s+not-run\s+0\s+out of overall budget")

    def test_a_resumed_run_counts_the_latest_attempt(self):
        self.add("check", "check.googlenet.ios", "usage", 2, "", "not expected")
        self.add("check", "check.googlenet.ios", "ok", 0, "{}")
        text, _ = self.summarize()
        self.assertIn("1/1 match", text)
        self.assertNotIn("did not succeed", text)


    def pytorch_doc(self, entries):
        with open(os.path.join(self.work, "pytorch.json"), "w") as f:
            json.dump({"torch": "2.11", "device_name": "H100", "tf32_conv": True, "tf32_matmul": True,
                       "graph": "BN folded", "results": entries}, f)

    def test_like_for_like_latency_both_sides_one_results_file(self):
        pt = lambda mode, layout, ms, **kw: {"model": "googlenet", "batch": 1, "layout": layout, "mode": mode,
                                             "median_ms": ms, "p10_ms": ms * 0.9, "p90_ms": ms * 1.1, "runs": 100,
                                             "same_weights_as_export": True, **kw}
        self.pytorch_doc([pt("eager", "nchw", 4.0), pt("cuda_graph", "nchw", 0.9), pt("cuda_graph", "channels_last", 1.0),
                          pt("compile", "nchw", 0.8, compile_s=31.5),
                          {"model": "googlenet", "batch": 1, "layout": "nchw", "mode": "max-autotune",
                           "skipped": "time budget: 10 s left"}])
        for sched, ms in (("sequential", 1.6), ("ios", 0.5), ("nimble", 0.4)):
            self.add("opsched", f"sched.googlenet_b1.{sched}", "ok", 0,
                     json.dumps({"latency_ms": ms * 1.01, "floor_ms": 0.55, "search_seconds": 2.0}))
            self.add("opsched", f"lat.googlenet_b1.{sched}", "ok", 0,
                     json.dumps({"latency_ms": ms, "p10_ms": ms * 0.98, "p90_ms": ms * 1.02, "repeat": 100,
                                 "outputs": [{"scaled_error": 4e-3}], "check": {"pass": True}}))
        text, results = self.summarize(steps="export pytorch opsched")
        # PyTorch's best is compile (0.8 ms); opsched's best nimble 0.4 ms: 2.00x; sequential 1.6 ms: 0.50x.
        self.assertIn("googlenet batch 1: opsched best 0.400 ms (nimble) vs PyTorch best 0.800 ms (compile/nchw): "
                      "2.00x (opsched faster)", text)
        self.assertIn("googlenet batch 1: opsched sequential 1.600 ms vs PyTorch best 0.800 ms: 0.50x (kernel parity)", text)
        self.assertRegex(text, r"googlenet\s+1\s+4\.000\s+-\s+0\.900\s+1\.000\s+0\.800\s+-\s+-\s+0\.800 \(compile/nchw\)"
                               r"\s+1\.600\s+0\.400 \(nimble\)\s+2\.00\s+0\.50")
        # Per scheduler, with the ops-alone critical path of the sequential plan's schedule.
        self.assertRegex(text, r"googlenet\s+1\s+1\.600\s+-\s+-\s+-\s+0\.500\s+0\.400\s+-\s+0\.550")
        self.assertIn("weights = the export's: yes", text)
        with open(os.path.join(self.out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        def value(**kw):
            hits = [r for r in rows if all(r[k] == str(v) for k, v in kw.items())]
            self.assertEqual(len(hits), 1, kw)
            return hits[0]["value"]
        self.assertEqual(value(side="pytorch", config="compile", layout="nchw", metric="median_ms"), "0.8")
        self.assertEqual(value(side="pytorch", config="compile", metric="compile_s"), "31.5")
        self.assertEqual(value(side="opsched", config="nimble", metric="median_ms"), "0.4")
        self.assertEqual(value(side="opsched", config="ops_alone_critical_path", metric="value_ms"), "0.55")
        self.assertEqual(value(section="headline", metric="pytorch_best_over_opsched_best"), "2")
        self.assertEqual(value(side="pytorch", config="max-autotune", metric="not_measured"), "skipped")

    def test_fault_outcomes_are_read_from_the_amended_rows(self):
        fault = lambda scaled: json.dumps({"outputs": [{"scaled_error": scaled}],
                                           "check": {"pass": False, "fault": "weight=/inception4e/conv/Conv"}})
        self.add("fault", "fault.googlenet_b1.fp32", "fail", 1, fault(5.9e-2))
        self.rows.append("fault\tfault.googlenet_b1.fp32\tok\t\t0\t(outcome of the run above)\t"
                         "caught: weight=/inception4e/conv/Conv x1.05 fails the TF32-off bar\n")
        self.add("fault", "fault.googlenet_b1.tf32", "ok", 0, fault(1.5e-2))
        self.rows.append("fault\tfault.googlenet_b1.tf32\tok\t\t0\t(outcome of the run above)\t"
                         "not caught: weight=/inception4e/conv/Conv x1.05 passes the TF32-on 2e-2 bar (reported)\n")
        text, results = self.summarize(steps="fault")
        self.assertRegex(text, r"googlenet\s+1\s+fp32\s+weight=/inception4e/conv/Conv\s+5\.9e-02\s+caught")
        self.assertRegex(text, r"googlenet\s+1\s+tf32\s+weight=/inception4e/conv/Conv\s+1\.5e-02\s+not caught")
        self.assertNotIn("did not succeed", text)
        self.assertEqual([f["verdict"] for f in results["fault"]], ["caught", "not caught"])

    def test_held_out_calibration_spearman_and_mean_error(self):
        os.makedirs(os.path.join(self.work, "lomo"))
        header = "model,stage,strategy,groups,ops,chosen,measured_ms,simulated_ms,fitted_ms,op_groups,signature\n"
        stages = {"googlenet": [(1.0, 1.1), (2.0, 1.8), (3.0, 3.3)],   # ranks agree; errors 10%, 10%, 10%
                  "resnet50": [(1.0, 2.0), (2.0, 1.0)]}                # ranks reversed; errors 100%, 50%
        for model, pairs in stages.items():
            with open(os.path.join(self.work, "lomo", f"heldout_{model}.csv"), "w") as f:
                f.write(header + "".join(f"model,{i},concurrent,1,1,0,{m},{s},{s},x,y\n" for i, (m, s) in enumerate(pairs)))
            self.add("lomo", f"lomo.fit.{model}", "ok", 0, json.dumps({"after": {"spearman": 0.99, "mean_abs_rel_error": 0.05}}))
            self.add("lomo", f"lomo.test.{model}", "ok", 0, json.dumps({"before": {"spearman": 0.5}}))
        text, results = self.summarize(steps="lomo")
        self.assertRegex(text, r"googlenet\s+ok\s+3\s+1\.000\s+10\.0\s+0\.500\s+0\.990\s+5\.0")
        self.assertRegex(text, r"resnet50\s+ok\s+2\s+-1\.000\s+75\.0")
        # Pooled: 5 stages, mean error (0.1 + 0.1 + 0.1 + 1 + 0.5) / 5 = 36%.
        self.assertRegex(text, r"all held out\s+5\s+[0-9.-]+\s+36\.0")
        self.assertIn("mean |error| 36.0% (goal <= 10%): NOT met", text)
        with open(os.path.join(self.out, "calibrate.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 6)

    # ---------------------------------------------------------------- transformers, Opara vs Nimble, mappings
    def results_csv(self):
        with open(os.path.join(self.out, "results.csv")) as f:
            return list(csv.DictReader(f))

    def test_transformers_like_for_like_check_fault_and_merged_pytorch_json(self):
        os.makedirs(os.path.join(self.work, "transformers"))
        with open(os.path.join(self.work, "transformers", "manifest.json"), "w") as f:
            json.dump({"torch": "2.11", "seq": 128, "full": False, "pytorch_ref_device": "cuda",
                       "exports": [{"model": "bert_like", "batch": 8, "input_shapes": [[8, 128]], "onnx_bytes": 5e7,
                                    "pytorch_fp32_scaled_error": 4e-7, "pytorch_tf32_scaled_error": 2e-3,
                                    "seconds": 3.0}], "errors": []}, f)
        self.pytorch_doc([{"model": "googlenet", "batch": 1, "layout": "nchw", "mode": "eager", "median_ms": 4.0}])
        with open(os.path.join(self.work, "pytorch_tf.json"), "w") as f:
            json.dump({"torch": "2.11", "device_name": "H100", "tf32_conv": True, "tf32_matmul": True,
                       "graph": "export_transformers.py's modules", "results": [
                           {"model": "bert_like", "batch": 8, "layout": "nchw", "mode": "cuda_graph", "median_ms": 1.2,
                            "same_weights_as_export": True},
                           {"model": "bert_like", "batch": 8, "layout": "nchw", "mode": "compile", "median_ms": 0.9,
                            "compile_s": 20.0, "same_weights_as_export": True}]}, f)
        for sched, ms in (("sequential", 1.5), ("ios", 1.1), ("nimble", 1.0), ("opara", 0.95)):
            self.add("tfopsched", f"lat.bert_like_b8.{sched}", "ok", 0,
                     json.dumps({"latency_ms": ms, "p10_ms": ms, "p90_ms": ms, "repeat": 100,
                                 "outputs": [{"scaled_error": 3e-3}], "check": {"pass": True}}))
            self.add("tfcheck", f"check.bert_like_b8.{sched}", "ok", 0,
                     json.dumps({"outputs": [{"scaled_error": 5e-7, "max_rel_error": 1e-3}], "check": {"pass": True}}))
        self.add("tffault", "fault.bert_like_b8.fp32", "fail", 1,
                 json.dumps({"outputs": [{"scaled_error": 6e-3}], "check": {"pass": False, "fault": "weight=/l1/o/MatMul"}}))
        self.rows.append("tffault\tfault.bert_like_b8.fp32\tok\t\t0\t(outcome of the run above)\t"
                         "caught: weight=/l1/o/MatMul x1.05 fails the TF32-off bar\n")
        text, results = self.summarize(steps="tfexport tfpytorch tfopsched tfcheck tffault")
        self.assertRegex(text, r"bert_like\s+8\s+8x128\s+4\.0e-07\s+2\.0e-03")
        # PyTorch's best: compile 0.9 ms; opsched's best: opara 0.95 ms.
        self.assertIn("like-for-like latency (transformers)", text)
        self.assertRegex(text, r"bert_like\s+8\s+-\s+-\s+1\.200\s+-\s+0\.900\s+-\s+-\s+0\.900 \(compile/nchw\)"
                               r"\s+1\.500\s+0\.950 \(opara\)\s+0\.95")
        self.assertIn("4/4 match", text)
        self.assertRegex(text, r"bert_like\s+8\s+fp32\s+weight=/l1/o/MatMul\s+6\.0e-03\s+caught")
        self.assertNotIn("did not succeed", text)
        rows = self.results_csv()
        hit = [r for r in rows if r["side"] == "pytorch" and r["model"] == "bert_like" and r["config"] == "compile"
               and r["metric"] == "median_ms"]
        self.assertEqual([r["value"] for r in hit], ["0.9"])
        self.assertTrue(any(r["model"] == "bert_like" and r["metric"] == "scaled_error_vs_pytorch_fp32" for r in rows))
        with open(os.path.join(self.out, "pytorch.json")) as f:
            merged = json.load(f)
        self.assertEqual(merged["results"][0]["model"], "googlenet")
        self.assertEqual(len(merged["transformers"]["results"]), 2)

    def test_opara_against_nimble_measured_and_predicted(self):
        plans = os.path.join(self.work, "tfplans")
        os.makedirs(plans)
        launches = {"launches": [{"ops": ["a"], "stream": 0, "wait_for": []}]}
        for name in ("t5_like_b1.nimble", "sim.t5_like_b1.nimble", "t5_like_b1.opara"):
            with open(os.path.join(plans, name + ".json"), "w") as f:
                json.dump(launches, f)
        with open(os.path.join(plans, "sim.t5_like_b1.opara.json"), "w") as f:
            json.dump({"launches": [{"ops": ["a"], "stream": 1, "wait_for": []}]}, f)
        lat = lambda ms: json.dumps({"latency_ms": ms})
        self.add("tfopsched", "lat.t5_like_b1.nimble", "ok", 0, lat(1.00))
        self.add("tfopsched", "lat.t5_like_b1.opara", "ok", 0, lat(0.90))
        for k, (n, o) in enumerate(((1.02, 0.91), (0.98, 0.89)), 1):
            self.add("opara", f"opara.lat.t5_like_b1.nimble.{k}", "ok", 0, lat(n))
            self.add("opara", f"opara.lat.t5_like_b1.opara.{k}", "ok", 0, lat(o))
        self.add("opara", "opara.sim.t5_like_b1.nimble", "ok", 0, lat(2.0))
        self.add("opara", "opara.sim.t5_like_b1.opara", "ok", 0, lat(1.9))
        text, results = self.summarize(steps="opara")
        # Medians: nimble 1.00, opara 0.90 -> +10.0%; sim: (2.0 - 1.9) / 2.0 = +5.0%.
        self.assertRegex(text, r"t5_like\s+1\s+1\.000\s+0\.900\s+\+10\.0%\s+2\.000\s+1\.900\s+\+5\.0%\s+yes\s+no")
        self.assertIn("t5_like batch 1: Opara's launch order vs Nimble's +10.0% measured, +5.0% predicted (sim:h100)", text)
        gain = [r["value"] for r in self.results_csv() if r["section"] == "opara" and r["metric"] == "measured_gain"]
        self.assertEqual(gain, ["0.1"])

    def test_mapping_measured_against_predicted_makespan(self):
        def run(pred, meas, ok):
            return json.dumps({"batch": 1, "check": {"pass": ok}, "mapping": {
                "file_mapper": "heft", "devices": ["cpu", "cuda:0"], "predicted_ms": pred, "measured_ms": meas,
                "measured_over_predicted": meas / pred,
                "ops": [{"op": "a", "device": "cpu"}, {"op": "b", "device": "cuda:0"}, {"op": "c", "device": "cuda:0"}]}})
        self.add("mapping", "mapping.map.googlenet", "ok", 0, "")
        self.add("mapping", "mapping.run.googlenet", "ok", 0, run(2.0, 2.2, True))
        self.add("mapping", "mapping.map.rwnn", "ok", 0, "")
        self.add("mapping", "mapping.run.rwnn", "fail", 1, run(1.0, 1.5, False))
        text, results = self.summarize(steps="mapping")
        self.assertRegex(text, r"googlenet\s+cpu,cuda:0\s+heft\s+2\.000\s+2\.200\s+1\.10\s+match\s+ok\s+cpu:1 cuda:0:2")
        self.assertIn("measured 2.200 ms vs predicted 2.000 ms (1.10x; goal within 20%: met); outputs match", text)
        self.assertIn("(1.50x; goal within 20%: NOT met); outputs do not match", text)
        ratio = [r["value"] for r in self.results_csv() if r["section"] == "mapping"
                 and r["metric"] == "measured_over_predicted"]
        self.assertEqual(ratio, ["1.1", "1.5"])


if __name__ == "__main__":
    unittest.main()
