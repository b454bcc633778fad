# The two commands a newcomer needs are `make run` and `make test`.
.PHONY: run reset test build generate lint breaking bench ci

GOTOOL := go tool -modfile=tools/go.mod

## run: build and start the catalog and the gateway with a development key (Ctrl-C stops both)
run:
	bash dev/run.sh

## reset: forget make run's keys (dev/keys.yaml) and its development key (dev/dev-key): the next make run makes a new one
reset:
	rm -f dev/keys.yaml dev/keys.yaml.lock dev/dev-key

## test: every test, with the race detector (about 15 minutes on 2 cores; see README.md)
test:
	@[ -n "$$REDIS_URL" ] || echo "make test: REDIS_URL is unset, so the Redis tests (gateway/limit, gateway/usage, cmd/gateway) skip; set REDIS_URL=redis://127.0.0.1:6379/0 to run them."
	@[ -n "$$DATABASE_URL" ] || echo "make test: DATABASE_URL is unset, so the PostgreSQL tests (gateway/keys, gateway/usage, cmd/gateway) skip; set DATABASE_URL=postgres://127.0.0.1:5432/test?sslmode=disable to run them."
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
