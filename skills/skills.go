// Package skills embeds the Agent Skills this repository ships, so that
// `debug-mode skill` can print them and `debug-mode skill install` can write
// them into an agent's skills folder. The folders beside this file are the
// canonical text; internal/skill reads them from here.
package skills

import "embed"

// FS holds every skill folder, each with its SKILL.md and references.
//
//go:embed debug-mode
var FS embed.FS
