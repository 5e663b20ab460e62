package templates

import (
	"errors"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const packagePlaceholder = "__PACKAGE_NAME__"

// NeedsPackage says whether the helper names its package (Go, Java), which
// FillPackage then fills in.
func (t *Template) NeedsPackage() bool { return strings.Contains(t.Helper, packagePlaceholder) }

// FillPackage puts the package name into the helper's package clause; for
// Java an empty name is the default package, whose file has no package
// line. name must be valid for the language (see CheckPackage).
func (t *Template) FillPackage(name string) {
	if name == "" {
		t.Helper = regexp.MustCompile(`(?m)^package `+packagePlaceholder+`;.*\n`).ReplaceAllString(t.Helper, "")
	}
	t.Helper = strings.ReplaceAll(t.Helper, packagePlaceholder, name)
	kept := t.Placeholders[:0]
	for _, p := range t.Placeholders {
		if p.Name != packagePlaceholder {
			kept = append(kept, p)
		}
	}
	t.Placeholders = kept
}

var javaPackageRE = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$`)

// CheckPackage rejects a name the language cannot use as a package name.
func (t *Template) CheckPackage(name string) error {
	switch {
	case t.Language == "go" && (!token.IsIdentifier(name) || name == "_"):
		return fmt.Errorf("--package %q is not a Go package name (an identifier, e.g. main or cache)", name)
	case t.Language == "java" && name != "" && !javaPackageRE.MatchString(name):
		return fmt.Errorf("--package %q is not a Java package name (e.g. com.example.app; empty for the default package)", name)
	}
	return nil
}

// javaPackageDeclRE finds a Java file's package declaration (after comments and annotations).
var javaPackageDeclRE = regexp.MustCompile(`(?m)^\s*(?:@[\w.]+(?:\([^)]*\))?\s*)*package\s+([\w.]+)\s*;`)

// DetectPackage is the package a helper saved in dir belongs to: for Go the
// package clause of the .go files there (as the go command reads them); for
// Java the package declaration of a .java file there, else the path below
// a src/<set>/java folder. It fails with what to pass instead when it
// cannot tell.
func (t *Template) DetectPackage(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--dir %s is not a folder: pass the folder the helper is saved in, or --package NAME", dir)
	}
	switch t.Language {
	case "go":
		p, err := build.ImportDir(abs, 0)
		var multiple *build.MultiplePackageError
		switch {
		case errors.As(err, &multiple):
			return "", fmt.Errorf("%s holds Go files of packages %s: pass --package NAME", abs, strings.Join(multiple.Packages, " and "))
		case p.Name == "":
			return "", fmt.Errorf("no Go file in %s to read the package from: pass --package NAME (main for a command) or --dir with the package's folder", abs)
		}
		return p.Name, nil
	case "java":
		names, _ := filepath.Glob(filepath.Join(abs, "*.java"))
		for _, n := range names {
			if filepath.Base(n) == "AgentDebugLog.java" {
				continue
			}
			b, err := os.ReadFile(n)
			if err != nil {
				continue
			}
			if m := javaPackageDeclRE.FindSubmatch(b); m != nil {
				return string(m[1]), nil
			}
			return "", nil // a source file with no package declaration: the default package
		}
		parts := strings.Split(filepath.ToSlash(abs), "/")
		for i := 2; i < len(parts); i++ { // Maven and Gradle: src/main/java/com/acme → com.acme
			if parts[i] == "java" && parts[i-2] == "src" {
				pkg := strings.Join(parts[i+1:], ".")
				if pkg != "" && !javaPackageRE.MatchString(pkg) {
					break
				}
				return pkg, nil
			}
		}
		return "", fmt.Errorf("no .java file in %s and no src/…/java folder above it to take the package from: pass --package NAME (e.g. com.example.app; --package= for the default package)", abs)
	}
	return "", nil
}

// PackageFor is where a helper serves target (a source file to probe, or
// its folder) and the package it then names: the file's own folder and
// package clause, so a file named from anywhere needs no --dir or
// --package. A Go external test file (package x_test) takes its folder's
// package, which the helper file joins.
func (t *Template) PackageFor(target string) (dir, name string, err error) {
	fi, err := os.Stat(target)
	if err != nil {
		return "", "", fmt.Errorf("--for %s: no such file or folder: name the source file you will probe (e.g. --for cache/lru.go)", target)
	}
	if fi.IsDir() {
		name, err = t.DetectPackage(target)
		return target, name, err
	}
	dir = filepath.Dir(target)
	switch t.Language {
	case "go":
		f, perr := parser.ParseFile(token.NewFileSet(), target, nil, parser.PackageClauseOnly)
		if perr != nil || !strings.HasSuffix(target, ".go") {
			return "", "", fmt.Errorf("--for %s is not a Go source file with a package clause: name a .go file of the package you will probe, or its folder", target)
		}
		if name = f.Name.Name; strings.HasSuffix(name, "_test") {
			name, err = t.DetectPackage(dir)
		}
		return dir, name, err
	case "java":
		b, rerr := os.ReadFile(target)
		if rerr != nil || !strings.HasSuffix(target, ".java") {
			return "", "", fmt.Errorf("--for %s is not a readable .java file: name the Java file you will probe, or its folder", target)
		}
		if m := javaPackageDeclRE.FindSubmatch(b); m != nil {
			return dir, string(m[1]), nil
		}
		return dir, "", nil // no declaration: the default package
	}
	return dir, "", nil
}
