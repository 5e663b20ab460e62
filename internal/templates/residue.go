package templates

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// What a helper file holds besides its agent log region: the lines its
// template puts outside the region (Go's and Java's package clause), and the
// package line a helper file of its own needs where the notes say to add one
// (Kotlin). Removing the probes leaves exactly these in a file that held
// nothing but the helper, so such a file can be deleted.

var placeholderRE = regexp.MustCompile(`__[A-Z_]+__`)

// packageLines are the package clauses helper files of their own need.
var packageLines = map[string]string{
	".go":   `package [A-Za-z_][A-Za-z0-9_]*`,
	".java": `package [A-Za-z_][A-Za-z0-9_.]*;`,
	".kt":   `package [A-Za-z_][A-Za-z0-9_.]*;?`,
	".kts":  `package [A-Za-z_][A-Za-z0-9_.]*;?`,
}

var residues = sync.OnceValue(func() map[string][]*regexp.Regexp {
	out := map[string][]*regexp.Regexp{}
	add := func(ext, pattern string) {
		out[ext] = append(out[ext], regexp.MustCompile(`^\s*`+pattern+`\s*$`))
	}
	for ext, p := range packageLines {
		add(ext, p+`(\s*//.*)?`)
	}
	for _, l := range registry {
		ext := "." + strings.TrimSuffix(l.ext, ".txt")
		for _, in := range l.ingests {
			t, err := l.render(in)
			if err != nil {
				continue
			}
			for _, line := range outsideRegions(t.Helper, t.Regions) {
				code, _, commented := strings.Cut(line, " "+l.comment)
				p := placeholderRE.ReplaceAllString(regexp.QuoteMeta(strings.TrimSpace(code)), `[A-Za-z_][A-Za-z0-9_.]*`)
				if commented {
					p += `(\s*` + regexp.QuoteMeta(l.comment) + `.*)?`
				}
				add(ext, p)
			}
		}
	}
	return out
})

// outsideRegions lists the non-blank lines of a helper outside its region.
func outsideRegions(helper string, r Regions) []string {
	var out []string
	in := false
	for _, line := range strings.Split(helper, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, r.Start):
			in = true
		case in && strings.HasPrefix(t, r.End):
			in = false
		case !in && t != "":
			out = append(out, line)
		}
	}
	return out
}

// HelperResidue says whether a line left in file after its agent log
// regions were removed is one a helper file of the file's language holds
// besides its region, such as `package main` in Go.
func HelperResidue(file, line string) bool {
	for _, re := range residues()[strings.ToLower(path.Ext(file))] {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}
