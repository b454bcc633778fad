# The two commands a newcomer needs are `make run` and `make test`.
.PHONY: run test build generate lint breaking bench ci

GOTOOL := go tool -modfile=tools/go.mod

## run: build and start the catalog and the gateway with a development key (Ctrl-C stops both)
run:
	bash dev/run.sh

## test: every test, with the race detector
test:
	go test -race -count=1 ./...

## build: bin/catalog (and every other command)
build:
	go build -o bin/ ./...

## generate: protobuf code and the embedded catalogue
generate:
	$(GOTOOL) buf generate
	go generate ./catalog/dataset

## lint: proto lint and format
lint:
	$(GOTOOL) buf lint
	$(GOTOOL) buf format --diff --exit-code

## breaking: proto changes that would break clients, against main
breaking:
	$(GOTOOL) buf breaking --against '.git#branch=main'

## bench: the catalogue page benchmarks (see docs/performance.md)
bench:
	go test -run '^$$' -bench . -count 6 ./catalog/exercise ./gateway/catalogclient ./gateway/httpapi ./gateway/limit ./gateway/keys ./internal/systemtest

## ci: what CI runs
ci:
	bash .ci/run

## load: the load test of docs/performance.md: servers on CPU 1, wrk on CPU 0 (apt-get install wrk); figures as ratios to a reference measured in the same run (LOAD_FLAGS adds flags, e.g. -duration 30s)
.PHONY: load
load:
	go build -o bin/ ./...
	bin/loadtest -bin bin -json bin/load.json $(LOAD_FLAGS)
