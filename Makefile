# The README's commands. Each installs what it needs (scripts/setup.sh) and is safe to re-run.
.PHONY: demo test serve bench build release setup clean

demo: ## the main job: a scripted demo on embedded defaults
	scripts/demo.sh

test: ## every test: native, wasm-in-Node, the package in Node, Chromium, workerd
	scripts/test.sh

serve: ## memcore serve on the embedded SQLite file, with an admin key for its console
	scripts/serve-console.sh

bench: ## release build, side-by-side measurements
	scripts/bench.sh

build: ## build the npm package into pkg/
	scripts/build.sh

release: ## the release tarball, its SHA-256 and changelog entry in target/dist/
	scripts/release.sh

setup:
	scripts/setup.sh --browser

clean:
	rm -rf pkg target/bindgen target/consumer
