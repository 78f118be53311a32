# Shared by the checks that run tests/bench/gpu_verify.sh (gpu_verify_dry_run.cmake,
# gpu_test_bundle_check.cmake).

# Skips the calling script (the message is matched by SKIP_REGULAR_EXPRESSION) without the bundle
# that the cli.bundle test packs, or without python3 for the summary. A macro, so that return()
# leaves the calling script.
macro(gpu_verify_require_bundle_and_python)
  if(NOT EXISTS "${BUNDLE}")
    message("skipped: no bundle at ${BUNDLE} (the cli.bundle test did not pack one)")
    return()
  endif()
  find_program(PYTHON3 python3)
  if(NOT PYTHON3)
    message("skipped: no python3 for the summary")
    return()
  endif()
endmacro()

# Shell mistakes (an unset variable under set -u, a typo) show up on stderr even when the run goes on.
function(gpu_verify_fail_on_shell_errors err)
  if(err MATCHES "(unbound variable|syntax error|command not found|line [0-9]+:)")
    message(FATAL_ERROR "gpu_verify.sh: shell error on stderr:\n${err}")
  endif()
endfunction()
