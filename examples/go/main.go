// Command roles answers "may this role do that?" for a small publishing
// site. Each role inherits every grant of its parent role and adds its own;
// a grant may end in a wildcard ("drafts:*").
//
//	go run . [role action]...
package main

import (
	"fmt"
	"os"
	"path"
	"slices"
)

// Role is one entry of the site's role table.
type Role struct {
	Name   string
	Parent string
	Grants []string
}

var roles = []Role{
	{Name: "viewer", Grants: []string{"posts:read"}},
	{Name: "author", Parent: "viewer", Grants: []string{"posts:comment", "drafts:*"}},
	{Name: "editor", Parent: "author", Grants: []string{"posts:publish"}},
	{Name: "reviewer", Parent: "author", Grants: []string{"posts:approve"}},
}

// resolver computes each role's effective grants once and remembers them.
type resolver struct {
	byName map[string]Role
	cache  map[string][]string
}

func newResolver(table []Role) *resolver {
	r := &resolver{byName: map[string]Role{}, cache: map[string][]string{}}
	for _, role := range table {
		r.byName[role.Name] = role
	}
	return r
}

// grants returns the role's own grants after everything it inherits.
func (r *resolver) grants(name string) []string {
	if g, ok := r.cache[name]; ok {
		return g
	}
	role := r.byName[name]
	var all []string
	if role.Parent != "" {
		all = r.grants(role.Parent)
	}
	for _, g := range role.Grants {
		if !slices.Contains(all, g) {
			all = append(all, g)
		}
	}
	r.cache[name] = all
	return all
}

// matches reports whether a grant covers an action; "drafts:*" covers
// "drafts:edit" but not "posts:edit".
func matches(grant, action string) bool {
	ok, err := path.Match(grant, action)
	return err == nil && ok
}

func allowed(r *resolver, role, action string) bool {
	for _, g := range r.grants(role) {
		if matches(g, action) {
			return true
		}
	}
	return false
}

func main() {
	r := newResolver(roles)
	for _, role := range roles {
		r.grants(role.Name) // warm the cache at start-up
	}
	checks := [][2]string{
		{"viewer", "posts:read"}, {"author", "drafts:edit"}, {"author", "posts:publish"},
		{"editor", "posts:publish"}, {"reviewer", "posts:approve"},
	}
	if args := os.Args[1:]; len(args) > 0 {
		checks = nil
		for i := 0; i+1 < len(args); i += 2 {
			checks = append(checks, [2]string{args[i], args[i+1]})
		}
	}
	for _, c := range checks {
		verdict := "denied"
		if allowed(r, c[0], c[1]) {
			verdict = "allowed"
		}
		fmt.Printf("%-8s %-14s %s\n", c[0], c[1], verdict)
	}
}
