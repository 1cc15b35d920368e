#!/usr/bin/env bash
# Mutation testing of the modules where a wrong number is silent (issue 50; docs/testing.md).
#
# mutmut (the `mutation` extra) changes one operator, constant or call at a time in the
# chosen modules and runs the tests that cover the changed function; a mutant that no test
# fails "survived": either a test is missing or the change does not alter behaviour (an
# equivalent mutant, listed in docs/testing.md with why).  Far too slow for CI: a command
# you run and report.
#
# It works on a scratch copy of the checkout's files (git ls-files), so the checkout is never
# touched and two module sets can run side by side; the copy is kept in
# ${MUTATION_DIR:-/tmp/neocoder-mutation}/SET so `mutmut show NAME` can be run there after.
#
# Usage: bash scripts/mutation.sh SET [SET ...]   (SET: parsers, ties, judges, entropy, ideas,
#        metrics, diversity, board, lostitems, watch, or all);  MUTATION_JOBS=2 by default;  PYTHON=.venv/bin/python by default;
#        MUTATION_TESTS="FILE ..." runs those test files (or node ids) instead of the set's own;
#        MUTATION_SURVIVORS=1 runs only the last run's survivors (and the mutants no test
#        reached) again, against the checkout's tests now: the score is then of all the set's
#        mutants, the killed ones staying killed as tests were only added (refused when a
#        module changed since that run).
# Prints, per set, the surviving mutants (with their diffs, when there are at most
# MUTATION_DIFFS=80 of them; `mutmut show NAME` in the kept copy for one) and a line
#   mutation score SET: K killed of N (P%), S survived, T timeouts, U no tests
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)
PYTHON="${PYTHON:-$checkout/.venv/bin/python}"
case "$PYTHON" in  # absolute: mutmut runs in the scratch copy, not here
    /*) ;;
    */*) PYTHON="$checkout/$PYTHON" ;;
    *) PYTHON="$(command -v "$PYTHON")" ;;
esac
jobs="${MUTATION_JOBS:-2}"
# the tests that read the NeoCoder release find it here (as .ci/run sets it), not beside the copy
export NEOCODER_RELEASE="${NEOCODER_RELEASE:-$(cd "$checkout/.." && pwd)/shared/neocoder}"
base="${MUTATION_DIR:-/tmp/neocoder-mutation}"

# Each set: the modules mutated, then "--", then the test files that cover them.
modules_of() {
    case "$1" in
        parsers) echo "neocoder/replies.py neocoder/benchmarks/framework/grammars.py --
                      tests/test_replies.py tests/test_replies_factories.py
                      tests/benchmarks/framework/test_framework_grammars.py
                      tests/benchmarks/ideas/test_ideas_grammars.py" ;;
        ties) echo "neocoder/report/leaderboard/ties.py --
                   tests/report/test_leaderboard_ties.py
                   tests/report/test_leaderboard.py::test_ties_are_rows_whose_intervals_reach_the_best" ;;
        # the framework's end-to-end tests (test_framework.py's task runs, about a minute each) also
        # reach the judges: left out here, they would make the set take hours on 2 cores
        judges) echo "neocoder/benchmarks/framework/retrieval.py neocoder/benchmarks/framework/chateval.py --
                     tests/benchmarks/framework/test_framework_judges.py
                     tests/benchmarks/framework/test_framework_grammars.py
                     tests/benchmarks/framework/test_framework_unreadable.py
                     tests/benchmarks/framework/test_framework.py::test_get_returns_the_top_n_by_cosine_best_first
                     tests/benchmarks/framework/test_framework.py::test_retrieval_judge_stops_early_above_t_and_the_most_confident_analyst_decides
                     tests/benchmarks/framework/test_framework.py::test_retrieval_judge_goes_on_below_t_up_to_the_round_cap
                     tests/benchmarks/framework/test_framework.py::test_chateval_counts_every_call_and_takes_the_majority" ;;
        # the framework's unit tests and its short end-to-end run, not the NLI model's nor the
        # validation's (20 s and 11 s a mutant); NeoCoder's semantic entropy through the rates
        entropy) echo "neocoder/benchmarks/framework/stepwise.py neocoder/metrics/entropy.py --
                      tests/benchmarks/framework/test_framework.py tests/metrics/test_entropy.py
                      tests/metrics/test_metrics.py tests/metrics/test_rates_by_hand.py
                      tests/benchmarks/framework/test_stepwise_by_hand.py
                      tests/benchmarks/framework/test_framework_drift.py::test_step_candidates_that_drift_are_set_aside_and_counted
                      --deselect tests/benchmarks/framework/test_framework.py::test_nli_backend_classifies_in_batches_with_a_small_random_model
                      --deselect tests/benchmarks/framework/test_framework.py::test_validation_against_macgyver_labels_and_the_two_runs_token_ratio" ;;
        # the ideas' unit tests and four of its runs against a scripted panel (the official
        # protocol end to end, its retry reminder, unreadable replies, fluency grades); the
        # other runs, about a second each and reaching every scoring function, would make it
        # hours on 2 cores: a survivor here may yet be killed by one of them
        ideas) echo "neocoder/benchmarks/ideas/scoring.py neocoder/benchmarks/ideas/official.py
                    neocoder/benchmarks/ideas/protocol.py --
                    tests/benchmarks/ideas/test_ideas.py tests/benchmarks/ideas/test_ideas_official.py
                    tests/benchmarks/ideas/test_ideas_grammars.py tests/benchmarks/ideas/test_ideas_prompts_by_hand.py
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_the_report_shows_an_ideas_run_beside_the_published_leaderboard
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_a_refusal_is_asked_again_once_with_the_fallback_prompt
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_ideas_over_the_word_limit_are_left_out_and_counted
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_a_folder_resumed_with_other_keywords_never_mixes_them_up
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_replay_judges_recorded_ideas_again_without_their_writer
                    --deselect tests/benchmarks/ideas/test_ideas.py::test_resume_after_an_interruption_pays_for_no_call_twice
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_the_analyses_run_on_two_recorded_runs_and_render_in_the_report
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_the_idea_model_never_judges_itself_and_is_named
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_a_panel_breaking_a_rule_runs_with_a_warning_when_asked
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_a_panel_file_gives_each_seat_its_own_model_options
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_a_reasoning_judge_that_refuses_max_tokens_and_temperature_judges_a_run
                    --deselect tests/benchmarks/ideas/test_ideas_official.py::test_the_authors_panel_is_the_default_panel_of_the_official_protocol" ;;
        metrics) echo "neocoder/metrics/rates.py --
                      tests/metrics/test_metrics.py tests/metrics/test_metrics_typed.py
                      tests/metrics/test_rates_by_hand.py" ;;
        # the diversity measures (NoveltyBench's formulas, the learned pair classifier) and the
        # agreement statistics they are validated with (kappa, the held-out choice of default);
        # the tests that make eval runs in Docker are left out (markers_of), and the two that
        # retrain the classifier (train.py, a minute each) and the CLI's whole validation
        diversity) echo "neocoder/metrics/diversity/measures.py neocoder/metrics/diversity/agreement.py
                        neocoder/metrics/diversity/validity.py neocoder/metrics/diversity/learned.py --
                        tests/metrics/diversity/test_diversity.py tests/metrics/diversity/test_diversity_validity.py
                        tests/metrics/diversity/test_learned.py tests/metrics/diversity/test_measures_by_hand.py
                        --deselect tests/metrics/diversity/test_learned.py::test_training_never_reads_the_held_out_half
                        --deselect tests/metrics/diversity/test_learned.py::test_training_reproduces_the_shipped_classifier_byte_for_byte
                        --deselect tests/metrics/diversity/test_diversity_validity.py::test_validate_command_prints_every_measure_and_the_judge" ;;
        # the board's checks of a submission (issue 56): every check refusing, the re-judging and
        # re-scoring, the summary's types (the full GPT-4 run's re-judging, minutes, left out)
        board) echo "neocoder/report/leaderboard/submissions.py neocoder/report/leaderboard/intake.py
                    neocoder/benchmarks/neocoder/verify.py neocoder/benchmarks/aidanbench/verify.py
                    neocoder/benchmarks/ideas/verify.py neocoder/benchmarks/framework/verify.py --
                    tests/report/test_board_submissions.py tests/report/test_board_rescore.py
                    tests/report/test_board_framework.py
                    tests/report/test_board_intake_by_hand.py tests/benchmarks/ideas/test_ideas_verify_by_hand.py
                    tests/benchmarks/aidanbench/test_aidan_verify_by_hand.py
                    tests/benchmarks/framework/test_framework_verify_by_hand.py
                    tests/benchmarks/framework/test_framework_rescore_by_hand.py
                    tests/report/test_board_build_by_hand.py
                    tests/benchmarks/ideas/test_ideas_verify_more_by_hand.py
                    tests/benchmarks/aidanbench/test_aidan_verify_more_by_hand.py
                    tests/benchmarks/neocoder/test_neocoder_verify_by_hand.py
                    tests/benchmarks/neocoder/test_neocoder_rejudge_by_hand.py
                    tests/report/test_board_checks_by_hand.py tests/report/test_board_summary_by_hand.py
                    tests/report/test_board_intake_more_by_hand.py" ;;
        # the lost-items rule (issue 56): the runner's Outcome and its check, and where each
        # benchmark and the suite count their items and their model's replies; only those
        # functions are mutated (functions_of), the rest of each file is not this set's
        lostitems) echo "neocoder/outcome.py neocoder/runner.py neocoder/benchmarks/neocoder/evaluation.py
                        neocoder/benchmarks/aidanbench/task.py neocoder/benchmarks/ideas/task.py
                        neocoder/benchmarks/framework/scores.py neocoder/suite/task.py --
                        tests/test_lost_items.py tests/test_outcomes_by_hand.py tests/suite/test_suite.py
                        tests/suite/test_suite_lost.py tests/test_benchmark_plugin.py tests/test_runner.py
                        tests/benchmarks/neocoder/test_eval_replies.py::test_a_run_whose_every_sample_the_sandbox_failed_exits_non_zero
                        tests/benchmarks/aidanbench/test_aidan_answers.py tests/benchmarks/ideas/test_ideas_answers.py
                        tests/benchmarks/framework/test_framework_unreadable.py
                        --deselect tests/suite/test_suite.py::test_suite_profiles_a_model_and_resumes_after_kill_without_a_call_answered_twice" ;;
        # the sandbox watcher (issue 57): what measures CPU time (the whole tree), wall time,
        # memory and output, and the limits and verdict it feeds; the runner's package is
        # neocoder/sandbox_recipe in the copy (made below), and its tests run it in
        # this process: the runner in a container runs the image's code, not the mutant (and a
        # mutant imports mutmut, which the runner's standard-library-only check refuses)
        watch) echo "neocoder/sandbox_recipe/runner/watch.py neocoder/sandbox_recipe/runner/limits.py --
                    tests/judge/test_budgets_watch.py tests/judge/test_watch_by_hand.py tests/judge/test_sandbox_classify.py
                    tests/judge/test_budgets.py
                    --deselect tests/judge/test_sandbox_classify.py::test_runner_imports_only_the_standard_library_and_itself" ;;
        *) echo "unknown module set: $1 (parsers, ties, judges, entropy, ideas, metrics, diversity, board, lostitems, watch, all)" >&2; return 1 ;;
    esac
}

# The functions of a set's modules that are mutated, as mutmut's mutant-name patterns
# (fnmatch; "xǁClassǁmethod*" for a method, "x_function*" for a function); empty: all of them.
functions_of() {
    case "$1" in
        lostitems) echo "neocoder.outcome.xǁOutcomeǁ* neocoder.outcome.x_check_outcome__*
                        neocoder.outcome.x_in_error__* neocoder.outcome.x_tally__* neocoder.outcome.x_with_lost__*
                        neocoder.runner.x_scored__*
                        neocoder.benchmarks.neocoder.evaluation.x_sample_outcome__*
                        neocoder.benchmarks.aidanbench.task.xǁAidanTaskǁoutcome__*
                        neocoder.benchmarks.ideas.task.xǁIdeasTaskǁoutcome__*
                        neocoder.benchmarks.framework.scores.x_outcome__*
                        neocoder.suite.task.xǁSuiteTaskǁscore__*" ;;
        *) echo "" ;;
    esac
}

# The pytest marker expression of a set's runs: every set leaves out the slow tests; the
# diversity and entropy sets also the Docker and local-model ones (an eval run or a local
# model's reply per mutant would take the night).
markers_of() {
    case "$1" in
        diversity | entropy) echo "not slow and not docker and not llm" ;;
        watch) echo "not slow and not docker" ;;
        *) echo "not slow" ;;
    esac
}

# copy_checkout DEST [PATH...]: the checkout's files (git ls-files: tracked and new, not
# ignored), or those under PATH, into DEST at the same relative paths
copy_checkout() {
    local dest="$1"
    shift
    git ls-files -z --cached --others --exclude-standard -- "$@" | "$PYTHON" -c '
import os, shutil, sys
dest = sys.argv[1]
for name in sys.stdin.read().split("\0"):
    if name and os.path.isfile(name):
        os.makedirs(os.path.join(dest, os.path.dirname(name)), exist_ok=True)
        shutil.copy2(name, os.path.join(dest, name))
' "$dest"
}

sets=("$@")
[ ${#sets[@]} -gt 0 ] || { sed -n '2,23p' "$0"; exit 2; }
[ "${sets[0]}" = all ] && sets=(parsers ties judges entropy ideas metrics diversity board lostitems watch)
"$PYTHON" -c "import mutmut" 2>/dev/null || {
    echo "mutmut is not installed for $PYTHON: pip install -e '.[mutation]'" >&2; exit 1; }
mutmut="$(dirname "$PYTHON")/mutmut"

for set in "${sets[@]}"; do
    spec=$(modules_of "$set")
    modules=$(echo "${spec%%--*}" | xargs)
    tests=$(echo "${MUTATION_TESTS:-${spec#*--}}" | xargs)
    functions=$(functions_of "$set" | xargs)
    work="$base/$set"
    survivors=""
    if [ -n "${MUTATION_SURVIVORS:-}" ]; then
        # the set's last run, its survivors run again against today's tests: the modules must
        # be the ones that run mutated, or its results say nothing of them
        [ -f "$work/results.txt" ] || { echo "no earlier run of $set in $work: run it in full first" >&2; exit 1; }
        for m in $modules; do
            here="${m/#neocoder\/sandbox_recipe\//sandbox/}"  # the runner's package is sandbox/ in the checkout
            cmp -s "$here" "$work/$m" || { echo "$m changed since the run in $work: run $set in full" >&2; exit 1; }
        done
        survivors=$(sed -n 's/^ *\([^ ]*\): \(survived\|no tests\)$/\1/p' "$work/results.txt" | xargs)
        [ -n "$survivors" ] || { echo "== mutation: $set: no survivor to run again"; continue; }
        rm -rf "$work/tests"
        copy_checkout "$work" tests
        # mutmut reports the mutants it did not run again as "not checked": their status is
        # the earlier run's (a killed mutant stays killed), merged back below
        cp "$work/results.txt" "$work/results-earlier.txt"
    else
        rm -rf "$work"
        mkdir -p "$work"
        copy_checkout "$work"
    fi
    # the runner's package is neocoder.sandbox_recipe.runner on the host, which an install maps
    # to sandbox/ (pyproject.toml): a real copy there is what mutmut can mutate and the tests import
    case " $modules " in
        *" neocoder/sandbox_recipe/"*) rm -rf "$work/neocoder/sandbox_recipe"
                                       cp -r "$work/sandbox" "$work/neocoder/sandbox_recipe" ;;
    esac
    # the tests find the shared inputs beside their checkout (tests/support/checkout.py); mutmut
    # runs them from $work/mutants, so beside it is $work
    ln -sfn "$(cd "$checkout/.." && pwd)/shared" "$work/shared"
    # mutmut reads [mutmut] from setup.cfg (pyproject.toml has no [tool.mutmut]): only the
    # set's modules are mutated, and only its test files are run.
    {
        echo "[mutmut]"
        echo "source_paths=neocoder"
        echo "only_mutate="
        for m in $modules; do echo "    $m"; done
        echo "also_copy="  # what the tests read beside the package (scripts they run, prompts, data)
        for d in scripts prompts sandbox data docs perf; do echo "    $d/"; done
        echo "pytest_add_cli_args_test_selection="
        for t in $tests; do echo "    $t"; done
        echo "pytest_add_cli_args="
        echo "    -p"
        echo "    no:cacheprovider"
        echo "    -m"
        echo "    $(markers_of "$set")"
        # the watch set's tests start processes: under mutmut's default fork isolation the
        # parent's os.wait() may take one of them for a worker and crash (KeyError); its fork
        # server ignores a pid it did not start
        [ "$set" != watch ] || echo "process_isolation=forkserver"
    } > "$work/setup.cfg"
    echo "== mutation: $set: $modules"
    echo "   tests: $tests"
    [ -z "$survivors" ] || echo "   again: the $(echo $survivors | wc -w) survivors (and untested) of the last run, with today's tests"
    [ -z "$functions" ] || echo "   functions: $functions"
    # shellcheck disable=SC2086  # one argument per survivor's name or function pattern
    (cd "$work" && env -u PYTHONPATH "$mutmut" run --max-children "$jobs" ${survivors:-$functions} > "$work/run.log" 2>&1) || {
        echo "mutmut run failed for $set (log: $work/run.log):" >&2; tail -30 "$work/run.log" >&2; exit 1; }
    (cd "$work" && "$mutmut" results --all true > "$work/results.txt" 2>&1) || true
    (cd "$work" && "$PYTHON" - "$set" "${MUTATION_DIFFS:-80}" "${survivors:+results-earlier.txt}" "$functions" <<'EOF')
import fnmatch, re, subprocess, sys
from pathlib import Path


def statuses(path: str) -> dict[str, str]:
    """mutant name -> status, from a `mutmut results --all true` listing."""
    got = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"\s*(\S+): (.+)$", line)
        if m:
            got[m.group(1)] = m.group(2).strip()
    return got


now = statuses("results.txt")
patterns = sys.argv[4].split() if len(sys.argv) > 4 else []
if patterns:  # a set of some functions: the other mutants of its files are not the set's
    now = {name: status for name, status in now.items() if any(fnmatch.fnmatch(name, p) for p in patterns)}
if len(sys.argv) > 3 and sys.argv[3]:  # a survivors' rerun: the others keep the earlier run's status
    earlier = statuses(sys.argv[3])
    now = {name: earlier.get(name, status) if status == "not checked" else status for name, status in now.items()}
    Path("results.txt").write_text("".join(f"    {name}: {status}\n" for name, status in now.items()))
counts: dict[str, int] = {}
survivors = []
for name, status in now.items():
    counts[status] = counts.get(status, 0) + 1
    if status == "survived":
        survivors.append(name)
show = len(survivors) <= int(sys.argv[2])  # each diff is one `mutmut show` (about a second)
for name in survivors:
    print(f"--- survived: {name}")
    if show:
        print(subprocess.run([str(Path(sys.executable).parent / "mutmut"), "show", name],
                             capture_output=True, text=True).stdout.rstrip())
killed = counts.get("killed", 0)
total = sum(counts.values())
score = 100.0 * killed / total if total else 0.0
print(f"mutation score {sys.argv[1]}: {killed} killed of {total} ({score:.1f}%), {counts.get('survived', 0)} survived, "
      f"{counts.get('timeout', 0)} timeouts, {counts.get('no tests', 0)} no tests"
      + "".join(f", {v} {k}" for k, v in sorted(counts.items())
                if k not in ("killed", "survived", "timeout", "no tests")))
EOF
done
