// ONNX Runtime's CPU latency for one model, for tests/bench/bench_cpu_vs_ort (a benchmark helper,
// never a dependency of opsched). Usage:
//   node ort_latency.js MODEL.onnx INPUT.bin DIMS(comma) THREADS REPEAT
// INPUT.bin holds the input as raw little-endian float32. Prints one JSON line:
// {"median_ms":..., "min_ms":..., "load_ms":...}. onnxruntime-node is found through NODE_PATH.
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

async function main() {
  const [model, inputPath, dimsArg, threadsArg, repeatArg] = process.argv.slice(2);
  if (!repeatArg) {
    console.error("usage: node ort_latency.js MODEL.onnx INPUT.bin DIMS THREADS REPEAT");
    process.exit(2);
  }
  const dims = dimsArg.split(",").map(Number);
  const threads = Number(threadsArg), repeat = Number(repeatArg);
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const raw = fs.readFileSync(inputPath);
  const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const feeds = { [session.inputNames[0]]: new ort.Tensor("float32", data, dims) };
  await session.run(feeds); // warm-up
  const times = [];
  for (let i = 0; i < repeat; ++i) {
    const s = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times.length % 2 ? times[(times.length - 1) / 2]
                                  : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
  console.log(JSON.stringify({ median_ms: median, min_ms: times[0], load_ms: loadMs }));
}

main().catch((e) => {
  console.error("ort_latency: " + e.message);
  process.exit(1);
});
