package mcp

import (
	"encoding/json"
	"fmt"
	"github.com/agentic-debug-mode/debug-mode/internal/output"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// An argument field becomes the flag named by its JSON name: a string or a
// number is passed when it is not zero (a pointer when it is set), a bool
// when true, a list once per element, a map once per key as KEY=VALUE (a
// non-string value as JSON). Fields tagged `cli:"arg"` are the positional
// arguments, passed last after "--" so that none can be read as a flag.

type field struct {
	name  string // the JSON name, which is the flag's name
	index []int
	typ   reflect.Type
	arg   bool // positional
}

// fields lists the argument fields of an input struct type.
func fields(t reflect.Type) []field {
	var out []field
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, field{name: name, index: f.Index, typ: f.Type, arg: f.Tag.Get("cli") == "arg"})
	}
	return out
}

// cliArgs is the command line for a tool call: the tool's command words,
// then its arguments as flags.
func cliArgs(command []string, in any) ([]string, error) {
	v := reflect.ValueOf(in)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	args := slices.Clone(command)
	var positional []string
	for _, f := range fields(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		} else if fv.IsZero() {
			continue
		}
		flag := "--" + f.name
		switch fv.Kind() {
		case reflect.String:
			if f.arg {
				positional = append(positional, fv.String())
			} else {
				args = append(args, flag+"="+fv.String())
			}
		case reflect.Bool:
			if fv.Bool() {
				args = append(args, flag)
			}
		case reflect.Int, reflect.Int64:
			args = append(args, flag+"="+strconv.FormatInt(fv.Int(), 10))
		case reflect.Slice:
			for i := 0; i < fv.Len(); i++ {
				s := fv.Index(i).String()
				if f.arg {
					positional = append(positional, s)
				} else {
					args = append(args, flag+"="+s)
				}
			}
		case reflect.Map:
			keys := fv.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				val := fv.MapIndex(k)
				var s string
				if val.Kind() == reflect.String {
					s = val.String()
				} else {
					b, err := json.Marshal(val.Interface())
					if err != nil {
						return nil, fmt.Errorf("%s: the value of %s is not JSON: %v", f.name, k.String(), err)
					}
					s = string(b)
				}
				args = append(args, flag+"="+k.String()+"="+s)
			}
		default:
			return nil, fmt.Errorf("internal: argument %s has an unsupported type %s", f.name, fv.Type())
		}
	}
	if len(positional) > 0 {
		args = append(append(args, "--"), positional...)
	}
	return args, nil
}

// ToolCall turns a debug-mode command line, as the CLI prints it in a
// "Next page:" line, into the same call of a tool: its name and arguments.
// It reports false for a line no tool takes exactly.
func ToolCall(line string) (string, map[string]any, bool) {
	words, ok := output.SplitCommandLine(line)
	if !ok || len(words) < 2 || words[0] != "debug-mode" {
		return "", nil, false
	}
	words = words[1:]
	var best *Tool
	for i := range Tools {
		t := &Tools[i]
		if len(words) >= len(t.Command) && slices.Equal(words[:len(t.Command)], t.Command) &&
			(best == nil || len(t.Command) > len(best.Command)) {
			best = t
		}
	}
	if best == nil {
		return "", nil, false
	}
	byName := map[string]field{}
	var argField *field
	for _, f := range fields(reflect.TypeOf(best.input).Elem()) {
		byName[f.name] = f
		if f.arg {
			argField = &f
		}
	}
	out := map[string]any{}
	rest := words[len(best.Command):]
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w == "--" || !strings.HasPrefix(w, "--") {
			if argField == nil {
				return "", nil, false
			}
			if w == "--" {
				i++
			}
			for ; i < len(rest); i++ {
				if argField.typ.Kind() == reflect.Slice {
					list, _ := out[argField.name].([]string)
					out[argField.name] = append(list, rest[i])
				} else {
					if _, dup := out[argField.name]; dup {
						return "", nil, false
					}
					out[argField.name] = rest[i]
				}
			}
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		f, ok := byName[name]
		if !ok {
			return "", nil, false
		}
		typ := f.typ
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() == reflect.Bool {
			out[name] = true
			continue
		}
		if !hasValue {
			if i+1 >= len(rest) {
				return "", nil, false
			}
			i++
			value = rest[i]
		}
		switch typ.Kind() {
		case reflect.String:
			out[name] = value
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return "", nil, false
			}
			out[name] = n
		case reflect.Slice:
			list, _ := out[name].([]string)
			out[name] = append(list, value)
		case reflect.Map:
			k, v, ok := strings.Cut(value, "=")
			if !ok {
				return "", nil, false
			}
			m, _ := out[name].(map[string]any)
			if m == nil {
				m = map[string]any{}
				out[name] = m
			}
			if typ.Elem().Kind() == reflect.String {
				m[k] = v
			} else {
				var jv any
				if json.Unmarshal([]byte(v), &jv) != nil {
					return "", nil, false
				}
				m[k] = jv
			}
		default:
			return "", nil, false
		}
	}
	return best.Name, out, true
}
