package probes

import "strings"

// SplitLocation splits an event location, "path:line" or
// "path:line:column" (also with a "file://" prefix or Windows separators),
// into its path and line; ok is false when it has no line.
func SplitLocation(loc string) (path string, line int, ok bool) { return splitLocation(loc) }

// PathParts splits a path on either separator, without empty or "." parts.
func PathParts(p string) []string { return pathParts(p) }

// CommonSuffix counts the trailing path components a and b share.
func CommonSuffix(a, b []string) int { return commonSuffix(a, b) }

// SkipDir says whether a folder of this name is one the ledger never
// scans (dependencies, build output, caches, version control).
func SkipDir(name string) bool { return skipDirs[name] || strings.HasSuffix(name, ".egg-info") }
