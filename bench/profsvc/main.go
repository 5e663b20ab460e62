// Command profsvc is debug-mode with profiling of its background service:
// build it in place of the real binary, and when DEBUG_MODE_BENCH_PROFILE_DIR
// is set, the service it spawns writes a CPU profile for its whole life and
// heap, allocation, mutex and block profiles when it stops, all named
// <kind>-<pid>.prof in that directory. The CLI side is unchanged.
//
//	go build -o bench/out/debug-mode-prof ./bench/profsvc
//	DEBUG_MODE_BENCH_PROFILE_DIR=bench/out/prof go run ./bench/ingest -bin bench/out/debug-mode-prof
//	go tool pprof -top bench/out/debug-mode-prof bench/out/prof/cpu-*.prof
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/agentic-debug-mode/debug-mode/internal/cli"
	"github.com/agentic-debug-mode/debug-mode/internal/client"
)

// ProfileDirEnv names the directory profiles are written to.
const ProfileDirEnv = "DEBUG_MODE_BENCH_PROFILE_DIR"

func main() {
	dir := os.Getenv(ProfileDirEnv)
	if dir == "" || len(os.Args) < 2 || os.Args[1] != client.ServiceCommand {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(profiled(dir))
}

func profiled(dir string) int {
	name := func(kind string) string { return filepath.Join(dir, fmt.Sprintf("%s-%d.prof", kind, os.Getpid())) }
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	}
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(int(1e6)) // one sample per millisecond blocked
	cpu, err := os.Create(name("cpu"))
	if err == nil {
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			cpu = nil
		}
	}
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	if cpu != nil {
		pprof.StopCPUProfile()
		cpu.Close()
	}
	for _, kind := range []string{"heap", "allocs", "mutex", "block"} {
		if f, err := os.Create(name(kind)); err == nil {
			pprof.Lookup(kind).WriteTo(f, 0)
			f.Close()
		}
	}
	return code
}
