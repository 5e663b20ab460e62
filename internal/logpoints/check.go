package logpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
)

// unchecked keeps a logpoint whose line could not be checked: the hook still
// reports at run time whether it could place it.
func unchecked(why string) CheckResult {
	return CheckResult{OK: true, Unchecked: why + "; the hook reports at run time whether it could place the logpoint (debug-mode logpoint list)"}
}

// runCheck runs a language's checker (cmd, not yet started) on req and reads
// its one JSON answer from stdout: {"ok", "reason", "placement", "unchecked"}.
// A checker that fails or answers nothing leaves the logpoint unchecked,
// with the line of its stderr that says why (errLine picks it: a Python
// traceback ends with it, a Node error starts with it).
func runCheck(ctx context.Context, runtime string, cmd *exec.Cmd, req CheckRequest, errLine func(string) string) CheckResult {
	in, _ := json.Marshal(map[string]any{"file": req.File, "line": req.Line, "data": req.Data})
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return unchecked(runtime + " took too long to check the line")
	}
	var ans struct {
		OK        bool   `json:"ok"`
		Reason    string `json:"reason"`
		Placement string `json:"placement"`
		Unchecked string `json:"unchecked"`
	}
	if jerr := json.Unmarshal(out.Bytes(), &ans); err != nil || jerr != nil {
		msg := errLine(strings.TrimSpace(errb.String()))
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return unchecked(runtime + " could not check the line (" + msg + ")")
	}
	if ans.Unchecked != "" {
		return unchecked(ans.Unchecked)
	}
	return CheckResult{OK: ans.OK, Reason: ans.Reason, Placement: ans.Placement}
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
