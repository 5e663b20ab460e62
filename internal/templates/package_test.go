package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDetectPackage: the package a helper saved in a folder belongs to, or
// an error that says what to pass instead.
func TestDetectPackage(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "cmd", "main.go"), "// Command x.\npackage main\n")
	write(t, filepath.Join(root, "cache", "cache.go"), "package cache\n")
	write(t, filepath.Join(root, "cache", "cache_test.go"), "package cache_test\n")
	write(t, filepath.Join(root, "cache", "gen.go"), "//go:build ignore\n\npackage main\n")
	write(t, filepath.Join(root, "xonly", "x_test.go"), "package xonly_test\n")
	write(t, filepath.Join(root, "mixed", "a.go"), "package a\n")
	write(t, filepath.Join(root, "mixed", "b.go"), "package b\n")
	write(t, filepath.Join(root, "app", "src", "main", "java", "com", "acme", "cart", "Cart.java"), "/* header */\n@Deprecated\npackage com.acme.cart;\n\nclass Cart {}\n")
	write(t, filepath.Join(root, "app", "src", "test", "java", "com", "acme", "empty", "README"), "")
	write(t, filepath.Join(root, "flat", "Main.java"), "// no package: the default one\npublic class Main {}\n")
	write(t, filepath.Join(root, "odd", "Other.java"), "package org.example.odd;\n")
	os.MkdirAll(filepath.Join(root, "app", "src", "main", "java"), 0o755)
	os.MkdirAll(filepath.Join(root, "nothing"), 0o755)

	for _, c := range []struct {
		lang, dir, want, err string
	}{
		{"go", "cmd", "main", ""},
		{"go", "cache", "cache", ""}, // the test package and an ignored file do not count
		{"go", "xonly", "xonly", ""}, // only external tests: the package they test
		{"go", "mixed", "", "packages a and b"},
		{"go", "nothing", "", "no Go file"},
		{"go", "missing", "", "is not a folder"},
		{"java", "app/src/main/java/com/acme/cart", "com.acme.cart", ""},
		{"java", "app/src/test/java/com/acme/empty", "com.acme.empty", ""}, // no sibling: the path below src/test/java
		{"java", "app/src/main/java", "", ""},                              // the source root: the default package
		{"java", "flat", "", ""},
		{"java", "odd", "org.example.odd", ""}, // a sibling's declaration wins over the folder
		{"java", "nothing", "", "no .java file"},
	} {
		tm, err := Lookup(c.lang, "file")
		if err != nil {
			t.Fatal(err)
		}
		got, err := tm.DetectPackage(filepath.Join(root, c.dir))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: %q, %v; want an error with %q", c.lang, c.dir, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s %s: %q, %v; want %q", c.lang, c.dir, got, err, c.want)
		}
	}
}

// TestFillPackage: the package clause is filled in, a Java default package
// drops its line, and the placeholder is no longer listed.
func TestFillPackage(t *testing.T) {
	for _, c := range []struct{ lang, name, want, gone string }{
		{"go", "cache", "\npackage cache\n", "__PACKAGE_NAME__"},
		{"java", "com.acme", "\npackage com.acme;\n", "__PACKAGE_NAME__"},
		{"java", "", "// #region agent log helper\nimport java.util.Map;", "package "},
	} {
		tm, _ := Lookup(c.lang, "file")
		if !tm.NeedsPackage() {
			t.Fatalf("%s: the helper names no package", c.lang)
		}
		tm.FillPackage(c.name)
		if !strings.Contains(tm.Helper, c.want) || strings.Contains(tm.Helper, c.gone) {
			t.Errorf("%s %q: helper starts\n%.200s", c.lang, c.name, tm.Helper)
		}
		for _, p := range tm.Placeholders {
			if p.Name == "__PACKAGE_NAME__" {
				t.Errorf("%s: still lists __PACKAGE_NAME__", c.lang)
			}
		}
	}
	tm, _ := Lookup("go", "file")
	for _, bad := range []string{"", "1x", "a.b", "_", "func"} {
		if tm.CheckPackage(bad) == nil {
			t.Errorf("go: %q accepted as a package name", bad)
		}
	}
	tm, _ = Lookup("java", "file")
	for _, bad := range []string{"a..b", "1a", "a-b"} {
		if tm.CheckPackage(bad) == nil {
			t.Errorf("java: %q accepted as a package name", bad)
		}
	}
}

// TestPackageFor: the folder and package of the file a probe goes into,
// read from that file (a Go external test file: its folder's package), or
// from a folder; a missing path or a file of another language says what
// to name instead.
func TestPackageFor(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "lru", "lru.go"), "package lru\n")
	write(t, filepath.Join(root, "lru", "lru_test.go"), "package lru_test\n")
	write(t, filepath.Join(root, "lru", "expirable", "expirable.go"), "// Package expirable.\npackage expirable\n")
	write(t, filepath.Join(root, "src", "main", "java", "com", "acme", "Cart.java"), "package com.acme;\nclass Cart {}\n")
	write(t, filepath.Join(root, "flat", "Main.java"), "public class Main {}\n")
	write(t, filepath.Join(root, "notes.txt"), "package nope\n")
	for _, c := range []struct{ lang, target, dir, pkg, err string }{
		{"go", "lru/expirable/expirable.go", "lru/expirable", "expirable", ""},
		{"go", "lru/lru_test.go", "lru", "lru", ""},
		{"go", "lru/expirable", "lru/expirable", "expirable", ""},
		{"go", "notes.txt", "", "", "not a Go source file"},
		{"go", "lru/missing.go", "", "", "no such file or folder"},
		{"java", "src/main/java/com/acme/Cart.java", "src/main/java/com/acme", "com.acme", ""},
		{"java", "flat/Main.java", "flat", "", ""},
		{"java", "notes.txt", "", "", "not a readable .java file"},
	} {
		tm, err := Lookup(c.lang, "file")
		if err != nil {
			t.Fatal(err)
		}
		dir, pkg, err := tm.PackageFor(filepath.Join(root, c.target))
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: error %v, want %q", c.lang, c.target, err, c.err)
			}
		case err != nil || dir != filepath.Join(root, c.dir) || pkg != c.pkg:
			t.Errorf("%s %s: %q, %q, %v; want %q, %q", c.lang, c.target, dir, pkg, err, filepath.Join(root, c.dir), c.pkg)
		}
	}
}
