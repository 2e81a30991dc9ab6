# lmask — run `./just --list` (or `just --list`) to see the recipes.

set shell := ["bash", "-euo", "pipefail", "-c"]

export ONNXRUNTIME_SHARED_LIBRARY_PATH := env_var_or_default("ONNXRUNTIME_SHARED_LIBRARY_PATH", justfile_directory() / "third_party/onnxruntime/libonnxruntime.so")
export CGO_ENABLED := "1"
# The pinned Go toolchain (go.mod's toolchain line), fetched by the go command from the module proxy where the
# installed Go is older.
export GOTOOLCHAIN := "go1.27.3"

model := "models/pretrained/tsptw50-hard"
data := "datasets/bundled/tsptw50-hard-200.parquet"

# List recipes.
default:
    @"{{just_executable()}}" --list --justfile "{{justfile()}}"

# Install the pinned onnxruntime library, `just`, and the interop-test tools (LMASK_SKIP_INTEROP=1 leaves those out).
setup:
    bash scripts/setup.sh --test-tools

# Build the three CLIs into ./bin.
build:
    mkdir -p bin
    go build -o bin/ ./cmd/...

# Solve the bundled dataset with the bundled model (--preset best: network + local search); print the metrics table.
demo: build
    mkdir -p out
    ./bin/lmask-infer --model {{model}} --data {{data}} --out out/demo-solutions.parquet --metrics-json out/demo-metrics.json --preset best
    ./bin/lmask-data check --instances {{data}} --solutions out/demo-solutions.parquet
    ./bin/lmask-data plot --instances {{data}} --solutions out/demo-solutions.parquet --index 0 --out out/demo-tour.svg
    @echo "solutions: out/demo-solutions.parquet  metrics: out/demo-metrics.json  picture of instance 0: out/demo-tour.svg"

# Imitation training from local-search tours (label set, imitation, relabel rounds), under work/: ./just imitate tsptw50-easy
imitate set labels="10000" steps="3000" rounds="0":
    bash scripts/imitate.sh {{set}} {{labels}} {{steps}} {{rounds}}

# One network for a range of sizes (generated files per size, labels, imitation, optional REINFORCE), under work/mixed
mixed-sizes problem="tsptw" hardness="medium" sizes="20 40 60 80 100 120 150" per="1000" steps="1000" rl="0":
    bash scripts/mixed-sizes.sh {{problem}} {{hardness}} "{{sizes}}" {{per}} {{steps}} {{rl}}

# Networks across sizes (the paper's n = 50 set, generated n = 75, 100, 150, Dumas), the network alone, e.g. ./just eval-sizes medium tsptw50-medium work/mixed/tsptw-medium/imitate/model
eval-sizes hardness="medium" *models="":
    bash scripts/eval-sizes.sh {{hardness}} {{models}}

# A network trained on your own distribution (a clustered stress class with service times) against the shipped ones: labels, imitation (resumable), comparison on 1,000 held-out instances.
own-distribution steps="1500" limit="95m":
    bash scripts/own-distribution.sh {{steps}} {{limit}}

# Evaluate the shipped models on the paper's test sets (../shared): greedy ×8, the paper's budgets.
eval-paper limit="10000" *flags="":
    bash scripts/eval-paper.sh {{limit}} {{flags}}

# The n = 100 models on 10,000 generated instances per set (the paper's n = 100 files are not published), mean objective against the paper's.
eval-n100 limit="10000" *flags="":
    bash scripts/eval-n100.sh {{limit}} {{flags}}

# A TSPTW model (default: TSPTW-50 medium) on the Dumas benchmark n20–n80 (../shared), the paper's protocol.
eval-dumas model="" *flags="":
    bash scripts/eval-dumas.sh "{{model}}" {{flags}}

# Rakke TSPDL; Gendreau, Ohlmann-Thomas or da Silva-Urrutia TSPTW (../shared), one row per size.
eval-bench bench *args="":
    bash scripts/eval-bench.sh {{bench}} {{args}}

# A whole benchmark (dumas, gendreau, ohlmann-thomas, dasilva-urrutia, rakke; ../shared) with only the given flags: mean, p95 and worst gaps, e.g. ./just eval-robust gendreau --preset best
eval-robust bench *args="":
    bash scripts/eval-robust.sh {{bench}} {{args}}

# The stress suite (Solomon-style TSPTW classes, seeded) and its references (exact to 21 nodes, long searches above) in DIR.
stress-suite dir="work/stress" count="20" sizes="11 16 21 51 101 251":
    bash scripts/stress-suite.sh {{dir}} {{count}} "{{sizes}}"

# The stress suite of DIR solved by a TSPTW model with the recommended setting, against its references.
eval-stress dir="work/stress" model="tsptw50-medium" *flags="":
    bash scripts/eval-stress.sh {{dir}} {{model}} {{flags}}

# Local search from Random-L ×8 tours on the paper's test sets (../shared), with the given kick counts.
eval-baseline *kicks="0 10":
    bash scripts/eval-baseline.sh {{kicks}}

# Write docs/results.md from the measurements in docs/results/*.json (a test checks that the page is current).
results:
    go run ./scripts/results --dir docs/results --out docs/results.md

# Run every test (the CI entry point).
test: setup deps-check
    go vet ./...
    go test -count=1 -timeout 40m ./...
    go test -count=1 -race ./lazymask ./trainer
    go test -count=1 -tags parity ./models ./internal/paritytest
    go build -tags xla -o /dev/null ./cmd/lmask-train
    bash scripts/interop-summary.sh

# Quick tests (skips the slow ones).
test-short:
    go test -short -count=1 ./...

# Generated hard TSPTW instances (feasible by construction) through the whole pipeline: which step found each tour.
bench-rescue count="10000" size="100" *flags="":
    bash scripts/bench-rescue.sh {{count}} {{size}} {{flags}}

# Infeasible days: COUNT generated TSPTW-50 instances, a tenth made infeasible; CPU time of explain and --infeasible drop against --preset best.
bench-infeasible count="1000" model="models/pretrained/tsptw50-medium":
    bash scripts/bench-infeasible.sh {{count}} {{model}}

# The network pipeline against the same search without a network at equal CPU time (median of REPS alternated pairs), e.g. ./just bench-frontier 50 20 1
bench-frontier n50="300" n100="100" reps="3":
    bash scripts/bench-frontier.sh {{n50}} {{n100}} {{reps}}

# A held-out check, on instances from a seed no reference was built from (40 TSPTW-100 medium, first 40, 3 pairs):
#   ./just build && bin/lmask-data generate --problem tsptw --size 100 --hardness medium --count 40 --seed 9201 --out out/heldout.parquet
#   ./just frontier-data out/heldout.parquet tsptw100-medium 40 3
# Does the network pay on your data? MODEL (a folder or a shipped name) against the same search without it at equal CPU time on DATA, first LIMIT (0 = all), REPS pairs, no reference needed.
frontier-data data model limit="0" reps="3":
    LMASK_FRONTIER_DATA={{quote(data)}} LMASK_FRONTIER_MODEL={{quote(model)}} LMASK_FRONTIER_LIMIT={{quote(limit)}} bash scripts/bench-frontier.sh 0 0 {{quote(reps)}}

# Draw a frontier report as docs/frontier.svg (default: the idle-machine report the results page shows): per set, the median gap against the median CPU ms per instance of the network and the no-network runs at each budget, every run faint behind; several reports overlay when each is named LABEL=FILE, e.g. ./just frontier-plot out/f.svg idle=docs/results/frontier/2026-12-07-quiet.json loaded=docs/results/frontier/2026-12-07.json
frontier-plot out="docs/frontier.svg" +reports="docs/results/frontier/2026-12-07-quiet-2.json":
    go run ./scripts/frontier -plot {{out}} {{reports}}

# Draw docs/frontier-pilots.svg: the shipped networks, their int8 copies and the search with a neural kick every 10th kick, each against the no-network search at its own CPU time (the idle-machine reports of docs/results/frontier).
frontier-pilots-plot out="docs/frontier-pilots.svg":
    go run ./scripts/frontier -plot {{out}} float32=docs/results/frontier/2026-12-07-quiet-2.json int8=docs/results/frontier/2026-12-07-int8.json neural-every-10=docs/results/frontier/2026-12-07-neural-every.json

# Draw docs/neural-kicks.svg from docs/results/pilots/neural-kicks.json: per set, the gap against the CPU ms per instance added to the base tours, each network-guided arm against the search alone at the same CPU.
neural-kicks-plot out="docs/neural-kicks.svg":
    go run ./scripts/frontier -plot-pairs {{out}} docs/results/pilots/neural-kicks.json

# int8 copies against their float32 networks: greedy ×8 on the first LIMIT of the paper's sets, REPS alternated pairs (CPU ratio, gaps).
bench-int8 limit="300" reps="3" *flags="":
    bash scripts/bench-int8.sh {{limit}} {{reps}} {{flags}}

# Peak RSS of lmask-infer on a file of SMALL and of LARGE generated instances, and on one shard of the large one.
rss-infer small="10000" large="100000":
    bash scripts/rss-infer.sh {{small}} {{large}}

# Benchmarks, printed as tables.
bench:
    go test -run '^$' -bench . -benchtime 1x ./...

# Fuzz each parser and decoder target briefly.
fuzz seconds="20":
    for t in $(go test -list '^Fuzz' ./lazymask ./datasets ./localsearch 2>/dev/null | grep '^Fuzz'); do \
      pkg=$(grep -l "func $t" lazymask/*_test.go datasets/*_test.go localsearch/*_test.go | head -1 | xargs dirname); \
      go test -run '^$' -fuzz "^$t\$" -fuzztime {{seconds}}s ./$pkg; done

# Check the package dependency rules.
deps-check:
    bash scripts/deps-check.sh

# Regenerate the tiny ONNX models in engine/testdata.
testdata:
    go generate ./models/onnx/...

# gofmt + go vet.
lint:
    test -z "$(gofmt -l .)" || (gofmt -l . && exit 1)
    go vet ./...

# Regenerate the bundled datasets (200 instances each, seed 2026) with the project's generators.
bundled-data: build
    for h in easy medium hard; do ./bin/lmask-data generate --problem tsptw --size 50 --hardness $h --count 200 --seed 2026 --out datasets/bundled/tsptw50-$h-200.parquet; done
    for h in medium hard; do ./bin/lmask-data generate --problem tspdl --size 50 --hardness $h --count 200 --seed 2026 --out datasets/bundled/tspdl50-$h-200.parquet; done
    ./bin/lmask-data generate --problem tsptw --size 100 --hardness easy --count 50 --seed 2026 --out datasets/bundled/tsptw100-easy-50.parquet
    ./bin/lmask-data generate --problem tsptw --size 100 --hardness medium --count 50 --seed 2026 --out datasets/bundled/tsptw100-medium-50.parquet
    ./bin/lmask-data generate --problem tsptw --size 100 --hardness hard --count 50 --seed 2026 --out datasets/bundled/tsptw100-hard-50.parquet
    ./bin/lmask-data generate --problem tspdl --size 100 --hardness medium --count 50 --seed 2026 --out datasets/bundled/tspdl100-medium-50.parquet
    ./bin/lmask-data generate --problem tspdl --size 100 --hardness hard --count 50 --seed 2026 --out datasets/bundled/tspdl100-hard-50.parquet

# Rewrite the stored regression solutions of every shipped model (on purpose only): the network alone, no rescue, as the test solves.
regression-update: build
    for f in models/pretrained/*/regression.json; do \
      d=$(dirname $f); \
      read data sols budget aug look batch < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["data"], r["solutions"], r["budget"], r["aug"], r["lookahead"], r["batch"])' $f); \
      ./bin/lmask-infer --model $d --data $data --out $d/$sols --budget $budget --aug $aug --lookahead $look --batch $batch --rescue-time 0; \
    done
