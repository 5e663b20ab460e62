package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"github.com/agentic-debug-mode/debug-mode/internal/skill"
)

type skillOptions struct {
	*env
}

func newSkillCmd(e *env) *cobra.Command {
	o := &skillOptions{env: e}
	cmd := &cobra.Command{
		Use:   "skill [FILE]",
		Short: "Print the Agent Skill that teaches an agent to debug with debug-mode, or install it",
		Long: `Print the Agent Skill for debug-mode: SKILL.md, the instructions an agent
loads to debug with runtime evidence (when to use probes, the method, every
command, the event schema, cleanup). Name one of its other files to print
that instead: ` + strings.Join(skill.Paths()[1:], ", ") + `.

debug-mode skill install writes the whole skill folder into the skills
folder of any agent that reads Agent Skills.`,
		Example: `  debug-mode skill
  debug-mode skill references/troubleshooting.md
  debug-mode skill install --dir ~/.claude/skills`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return skill.Paths(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			name := skill.Main
			if len(args) == 1 {
				name = args[0]
			}
			return o.show(name)
		},
	}
	cmd.AddCommand(newSkillInstallCmd(e))
	return cmd
}

// skillShown is the JSON form of a printed skill file.
type skillShown struct {
	skill.Meta
	Path  string   `json:"path"`
	Text  string   `json:"text"`
	Files []string `json:"files"`
}

func (o *skillOptions) show(name string) error {
	f, err := skill.Read(name)
	if err != nil {
		return usagef("%s", err.Error())
	}
	main, err := skill.Read(skill.Main)
	if err != nil {
		return err
	}
	meta, _, err := skill.ParseFrontMatter(main.Data)
	if err != nil {
		return err
	}
	res := skillShown{Meta: meta, Path: f.Path, Text: string(f.Data), Files: skill.Paths()}
	return o.printer().Result("skill", res, func(w io.Writer) { w.Write(f.Data) })
}

type skillInstallOptions struct {
	*env
	dir   string
	force bool
}

func newSkillInstallCmd(e *env) *cobra.Command {
	o := &skillInstallOptions{env: e}
	cmd := &cobra.Command{
		Use:   "install --dir <skills folder>",
		Short: "Write the skill into an agent's skills folder",
		Long: `Write the debug-mode skill folder (SKILL.md and references/) into a skills
folder, as <skills folder>/debug-mode. Any agent that reads Agent Skills finds
it there: for example ~/.claude/skills (Claude Code, every project),
.claude/skills (Claude Code, one project), ~/.agents/skills or .agents/skills
(agents that follow the Agent Skills standard, such as Codex).

The skills folder is created if it is missing. A copy that is already
identical is left alone and reported up to date. If any installed file
differs (edited by hand, or written by another version of debug-mode),
nothing is written unless you add --force. Files the skill does not have are
never touched. Run it again after upgrading debug-mode.`,
		Example: `  debug-mode skill install --dir ~/.claude/skills
  debug-mode skill install --dir .agents/skills
  debug-mode skill install --dir ~/.claude/skills --force`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.run() },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "", "the agent's skills folder; the skill goes into <dir>/debug-mode")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace installed files that differ from this version")
	cmd.MarkFlagDirname("dir")
	return cmd
}

func (o *skillInstallOptions) run() error {
	if o.dir == "" {
		return usagef("--dir is required: the agent's skills folder, e.g. ~/.claude/skills (Claude Code) or ~/.agents/skills (agents that follow the Agent Skills standard)")
	}
	dir := o.dir
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return usagef("cannot expand ~ in --dir (%v); give the full path", err)
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	res, err := skill.Install(dir, o.force)
	if errors.Is(err, skill.ErrChanged) {
		var changed []string
		for _, f := range res.Files {
			if f.Action == skill.Differs {
				changed = append(changed, f.Path)
			}
		}
		msg := res.Dir + " holds a different copy of the skill (" + strings.Join(changed, ", ") +
			" changed by hand or written by another version of debug-mode); nothing was written. " +
			"This version's text: debug-mode skill " + changed[0] + "; to replace the installed copy: " +
			output.CommandLine("skill", "install", "--dir", o.dir, "--force")
		if o.json {
			o.printer().Result("skill install", res, nil)
		}
		return &exitError{code: ExitFailure, kind: "skill_changed", msg: msg}
	}
	if err != nil {
		return err
	}
	return o.printer().Result("skill install", res, func(w io.Writer) { output.SkillInstall(w, res) })
}
