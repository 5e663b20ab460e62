package probes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ledger scan over a generated tree of 20,000 source files. Run with
//
//	go test -run '^$' -bench Scan -benchtime 10x ./internal/probes/
//
// bench/probes/run.sh times the built CLI on the same tree.

const benchFiles = 20000

var benchExts = []string{".js", ".ts", ".py", ".go", ".rb", ".php", ".ps1", ".cs", ".swift", ".rs", ".cpp", ".c", ".java", ".kt"}

// generateTree writes n source files (about 3 KiB each, one in fifty with a
// region, one in a thousand broken) across nested folders, plus a
// node_modules folder and .gitignore'd output the walk must skip. It returns
// the number of regions written.
func generateTree(dir string, n int) (int, error) {
	half := strings.Repeat("    value = compute(value, other) // ordinary code line\n", 28)
	regions := 0
	for i := range n {
		ext := benchExts[i%len(benchExts)]
		sub := filepath.Join(dir, "src", fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("mod%03d", i/40%25))
		var b strings.Builder
		b.WriteString(half)
		switch {
		case i%1000 == 999:
			b.WriteString("// #region agent log\nlog()\n")
		case i%50 == 0:
			b.WriteString("// #region agent log\nagentLog(\"H1\", \"f:1\", \"m\", null)\n// #endregion\n")
			regions++
		}
		b.WriteString(half)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%05d%s", i, ext)), []byte(b.String()), 0o644); err != nil {
			return 0, err
		}
	}
	skipped := map[string]string{
		"node_modules/dep/index.js": region,
		"generated/out.js":          region,
		".gitignore":                "generated/\n*.min.js\n",
		"src/app.min.js":            region,
		"README.md":                 region,
	}
	for name, content := range skipped {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return 0, err
		}
	}
	return regions, nil
}

func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	want, err := generateTree(dir, benchFiles)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := Scan(Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if r.FilesScanned != benchFiles || len(r.Regions) != want {
			b.Fatalf("scanned %d files and found %d regions, want %d and %d", r.FilesScanned, len(r.Regions), benchFiles, want)
		}
	}
	b.ReportMetric(float64(benchFiles)/(b.Elapsed().Seconds()/float64(b.N)), "files/s")
}

// TestGenerateBenchTree writes the benchmark tree to $PROBES_BENCH_TREE, for
// bench/probes/run.sh; it does nothing otherwise.
func TestGenerateBenchTree(t *testing.T) {
	dir := os.Getenv("PROBES_BENCH_TREE")
	if dir == "" {
		t.Skip("set PROBES_BENCH_TREE to a folder to write the benchmark tree there")
	}
	n, err := generateTree(dir, benchFiles)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d source files with %d regions to %s", benchFiles, n, dir)
}

// BenchmarkParse measures the marker parser alone on a 3 MiB source of
// ordinary code in which every tenth line is a region marker, a region-like
// comment or a line that merely mentions the word region, so the classifier,
// not the file system, is what is timed.
func BenchmarkParse(b *testing.B) {
	lines := []string{
		"// #region agent log H1", "    agentLog(\"H1\", \"f:1\", \"m\", null)", "// #endregion",
		"# region helpers", "# endregion", "    let region = regions[i] // pick a region",
		"    value = compute(value, other) // ordinary code line",
	}
	var src strings.Builder
	for i := 0; src.Len() < 3<<20; i++ {
		if i%10 == 0 {
			src.WriteString(lines[(i/10)%len(lines)])
		} else {
			src.WriteString(lines[len(lines)-1])
		}
		src.WriteByte('\n')
	}
	data := []byte(src.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		parse(data)
	}
}
