# The profiling workflow through the CLI: profile (and resume) -> compare --db -> export schedule,
# Chrome trace and CSV -> evaluate the exported schedule -> merge two databases.
# -DCLI=path -DWORK=dir
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# cli(EXPECTED_EXIT args...): runs opsched-cli, sets `out` in the caller.
function(cli expected)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "opsched-cli ${ARGN}: exit ${rc}, expected ${expected}\nstdout:\n${o}\nstderr:\n${e}")
  endif()
  set(out "${o}" PARENT_SCOPE)
endfunction()

function(expect_match text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "expected '${regex}' in:\n${text}")
  endif()
endfunction()

set(a ${WORK}/a.db)
set(profile_a profile zoo:squeezenet "zoo:random?ops=20" --schedulers sequential,ios,nimble --batch 1,2
    --device sim:h100 --warps --repeat 3 --db ${a})
cli(0 ${profile_a} --export-dir ${WORK}/exported)
# Not a terminal: one plain line per job.
expect_match("${out}" "\\[1/12\\] squeezenet sequential batch 1: [0-9.]+ ms, [0-9]+ active warps \\(run 1,")
expect_match("${out}" "\\[12/12\\] random nimble batch 2: ")
expect_match("${out}" "12 jobs: 12 run, 0 already in the database, 0 failed")
file(GLOB exported ${WORK}/exported/*)
list(LENGTH exported n)
if(NOT n EQUAL 24)
  message(FATAL_ERROR "--export-dir holds ${n} files, expected a schedule and a trace for each of 12 runs")
endif()

# Resume: nothing left to do.
cli(0 ${profile_a})
expect_match("${out}" "12 jobs: 0 run, 12 already in the database, 0 failed")

cli(0 compare --db ${a} --json)
set(doc "${out}")
string(JSON groups LENGTH "${doc}" groups)
if(NOT groups EQUAL 4)
  message(FATAL_ERROR "compare --db: ${groups} groups, expected 2 models x 2 batches\n${doc}")
endif()
string(JSON first GET "${doc}" groups 0 results 0 scheduler)
string(JSON second GET "${doc}" groups 0 results 1 scheduler)
string(JSON speedup GET "${doc}" groups 0 results 1 speedup)
string(JSON warps GET "${doc}" groups 0 results 1 average_active_warps)
string(JSON ios_run GET "${doc}" groups 0 results 1 run)
string(JSON random_model GET "${doc}" groups 2 model)
string(JSON random_ios_run GET "${doc}" groups 2 results 1 run)
if(NOT random_model STREQUAL "random")
  message(FATAL_ERROR "compare --db: third group is ${random_model}\n${doc}")
endif()
if(NOT first STREQUAL "sequential" OR NOT second STREQUAL "ios" OR speedup LESS_EQUAL 1 OR warps LESS_EQUAL 0)
  message(FATAL_ERROR "compare --db: unexpected first rows\n${doc}")
endif()

cli(0 compare --db ${a} zoo:squeezenet --batch 2 --device sim:h100)
expect_match("${out}" "^squeezenet, batch 2, on sim:h100 \\(simulated\\)\nscheduler +latency_ms.*\nsequential .*\nios .*\nnimble ")
if(out MATCHES "random")
  message(FATAL_ERROR "the filters let other models through:\n${out}")
endif()

cli(0 export --db ${a} --run ${ios_run} --format schedule -o ${WORK}/ios.json)
cli(0 evaluate zoo:squeezenet --schedule ${WORK}/ios.json --device sim:h100 --json)
expect_match("${out}" "\"scheduler\": \"ios\"")

# IOS runs the random DAG's independent convs on several streams: a track each.
cli(0 export --db ${a} --run ${random_ios_run} --format chrome-trace -o ${WORK}/ios.trace.json)
file(READ ${WORK}/ios.trace.json trace)
string(JSON events LENGTH "${trace}" traceEvents)
if(events LESS 10)
  message(FATAL_ERROR "Chrome trace has ${events} events")
endif()
expect_match("${trace}" "\"name\":\"stream 1\"")
expect_match("${trace}" "\"ph\":\"C\",\"name\":\"active warps\"")

cli(0 export --db ${a} --run ${ios_run} --format csv -o -)
expect_match("${out}" "^start,end,streamId,")

# A second database (another server), merged with the first; merging again adds nothing.
cli(0 profile zoo:googlenet --schedulers sequential,greedy --device sim:h100 --db ${WORK}/b.db)
cli(0 merge ${WORK}/merged.db ${a} ${WORK}/b.db)
expect_match("${out}" "14 runs in all")
cli(0 merge ${WORK}/merged.db ${a})
expect_match("${out}" "0 runs added, 12 already present")
cli(0 compare --db ${WORK}/merged.db --json)
string(JSON groups LENGTH "${out}" groups)
if(NOT groups EQUAL 5)
  message(FATAL_ERROR "merged database: ${groups} groups, expected 5\n${out}")
endif()
