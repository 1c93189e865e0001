package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/hook"
)

type hookInstall struct {
	Agent   string `arg:"" enum:"claude-code,codex,gemini" help:"The agent: claude-code, codex or gemini."`
	Project bool   `help:"The workspace's settings (the default): .claude/settings.json, .codex/hooks.json, .gemini/settings.json." xor:"scope"`
	User    bool   `help:"Your own settings, for every folder: ~/.claude/settings.json, ~/.codex/hooks.json, ~/.gemini/settings.json." xor:"scope"`
	Print   bool   `help:"Print the settings snippet instead of writing it."`
}

type hookUninstall struct {
	Agent   string `arg:"" enum:"claude-code,codex,gemini" help:"The agent: claude-code, codex or gemini."`
	Project bool   `help:"The workspace's settings (the default)." xor:"scope"`
	User    bool   `help:"Your own settings." xor:"scope"`
}

// hookSettings are where an agent keeps its hooks, under a folder (the
// workspace, or the home folder for --user), and the event it calls them
// on.
var hookSettings = map[hook.Agent]struct{ file, event string }{
	hook.ClaudeCode: {filepath.Join(".claude", "settings.json"), "PreToolUse"},
	hook.Codex:      {filepath.Join(".codex", "hooks.json"), "PreToolUse"},
	hook.Gemini:     {filepath.Join(".gemini", "settings.json"), "BeforeTool"},
}

// settingsFile is the file install edits.
func settingsFile(g *Globals, agent hook.Agent, user bool) (string, error) {
	base := ""
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home folder for --user: %w", err)
		}
		base = home
	} else {
		r, err := appOf(g).LoadRecipe()
		if err != nil {
			return "", err
		}
		base = r.Workspace
	}
	return filepath.Join(base, hookSettings[agent].file), nil
}

// hookExecutable is the rein an installed hook runs (tests name another).
var hookExecutable = os.Executable

// hookCommandLine is the command an agent runs: this rein, by its full
// path, quoted for the shell the agent starts hooks with, and the recipe
// install was given (--preset, --recipe), which the hook then decides with.
func hookCommandLine(agent hook.Agent, g *Globals) (string, error) {
	exe, err := hookExecutable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", errors.New("this rein is a temporary build (go run): install it first (go install ./cmd/rein), then run rein hook install")
	}
	words := []string{exe, "hook", string(agent)}
	if g.Recipe != "" {
		abs, err := filepath.Abs(g.Recipe)
		if err != nil {
			return "", err
		}
		words = append(words, "--recipe", abs)
	}
	if g.Preset != "" {
		words = append(words, "--preset", g.Preset)
	}
	for i, w := range words {
		q, err := hook.Quote(w)
		if err != nil {
			return "", err
		}
		if q != "'"+w+"'" || strings.ContainsAny(w, " \t\"'\\$`") {
			words[i] = q // plain words stay readable in the settings
		}
	}
	return strings.Join(words, " "), nil
}

// hookGroup is the entry install adds under the agent's event.
func hookGroup(agent hook.Agent, command string, also []string) map[string]any {
	// Longer than rein's own deadline (it answers by then, with a denial
	// if need be): Gemini counts milliseconds, the others seconds.
	timeout := 30
	if agent == hook.Gemini {
		timeout = 30000
	}
	h := map[string]any{"type": "command", "command": command, "timeout": timeout}
	if agent == hook.Gemini {
		h["name"] = "rein"
	}
	matcher := hook.Matcher(agent)
	for _, tool := range also {
		if !slices.Contains(strings.Split(matcher, "|"), tool) {
			matcher += "|" + regexp.QuoteMeta(tool)
		}
	}
	return map[string]any{"matcher": matcher, "hooks": []any{h}}
}

func (c *hookInstall) Run(g *Globals, e *env) error {
	agent := hook.Agent(c.Agent)
	command, err := hookCommandLine(agent, g)
	if err != nil {
		return err
	}
	event := hookSettings[agent].event
	// The agent's tools the recipe has answers for (hook.tools) reach the
	// hook too.
	var also []string
	if r, err := appOf(g).LoadRecipe(); err == nil {
		also = slices.Sorted(maps.Keys(r.Hook.Tools))
	}
	snippet := map[string]any{"hooks": map[string]any{event: []any{hookGroup(agent, command, also)}}}
	if c.Print {
		b, _ := json.MarshalIndent(snippet, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	path, err := settingsFile(g, agent, c.User)
	if err != nil {
		return err
	}
	settings, err := readSettings(path)
	if err != nil {
		return err
	}
	hooks, err := settings.object("hooks")
	if err != nil {
		return fmt.Errorf("%s: %w; fix it by hand, or see rein hook install --print", path, err)
	}
	groups, err := hooks.array(event)
	if err != nil {
		return fmt.Errorf("%s: hooks.%s: %w", path, event, err)
	}
	kept, removed := withoutOurs(groups, agent)
	group, _ := json.Marshal(hookGroup(agent, command, also))
	hooks.set(event, marshalArray(append(kept, group)))
	settings.set("hooks", hooks.marshal())
	if err := writeSettings(path, settings); err != nil {
		return err
	}
	if removed > 0 {
		fmt.Fprintf(e.stdout, "updated rein's hook in %s (%s runs %s)\n", path, agent, command)
	} else {
		fmt.Fprintf(e.stdout, "added rein's hook to %s: %s now asks %s before %s\n", path, agent, command, strings.ReplaceAll(hook.Matcher(agent), "|", ", "))
	}
	if agent == hook.Codex {
		fmt.Fprintln(e.stdout, "Codex asks you to review a new hook once: open /hooks in Codex and trust it.")
	}
	return nil
}

func (c *hookUninstall) Run(g *Globals, e *env) error {
	agent := hook.Agent(c.Agent)
	path, err := settingsFile(g, agent, c.User)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(e.stdout, "%s does not exist: nothing to remove\n", path)
		return nil
	}
	settings, err := readSettings(path)
	if err != nil {
		return err
	}
	hooks, err := settings.object("hooks")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	event := hookSettings[agent].event
	groups, err := hooks.array(event)
	if err != nil {
		return fmt.Errorf("%s: hooks.%s: %w", path, event, err)
	}
	kept, removed := withoutOurs(groups, agent)
	if removed == 0 {
		fmt.Fprintf(e.stdout, "%s has no hook of rein's for %s: nothing removed\n", path, agent)
		return nil
	}
	if len(kept) == 0 {
		hooks.del(event)
	} else {
		hooks.set(event, marshalArray(kept))
	}
	if len(hooks) == 0 {
		settings.del("hooks")
	} else {
		settings.set("hooks", hooks.marshal())
	}
	if len(settings) == 0 {
		// The file holds nothing but what install put there.
		if err := os.Remove(path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "removed rein's hook, and %s, which held nothing else\n", path)
		return nil
	}
	if err := writeSettings(path, settings); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed rein's hook from %s\n", path)
	return nil
}

// installedHooks lists, for rein doctor, where each agent has rein's hook.
func installedHooks(g *Globals) []string {
	out := []string{}
	for _, agent := range hook.Agents {
		for _, user := range []bool{false, true} {
			path, err := settingsFile(g, agent, user)
			if err != nil {
				continue
			}
			settings, err := readSettings(path)
			if err != nil {
				continue
			}
			hooks, err := settings.object("hooks")
			if err != nil {
				continue
			}
			groups, err := hooks.array(hookSettings[agent].event)
			if err != nil {
				continue
			}
			if _, n := withoutOurs(groups, agent); n > 0 {
				out = append(out, fmt.Sprintf("%s: %s", agent, path))
			}
		}
	}
	return out
}

// withoutOurs returns the groups with rein's hook for agent taken out (a
// group left with no hooks goes too), and how many hooks were rein's.
func withoutOurs(groups []json.RawMessage, agent hook.Agent) ([]json.RawMessage, int) {
	var kept []json.RawMessage
	removed := 0
	for _, g := range groups {
		var group map[string]json.RawMessage
		if json.Unmarshal(g, &group) != nil {
			kept = append(kept, g)
			continue
		}
		var handlers []json.RawMessage
		if json.Unmarshal(group["hooks"], &handlers) != nil {
			kept = append(kept, g)
			continue
		}
		var left []json.RawMessage
		for _, h := range handlers {
			var handler struct{ Command string }
			if json.Unmarshal(h, &handler) == nil && isOurs(handler.Command, agent) {
				removed++
				continue
			}
			left = append(left, h)
		}
		switch {
		case len(left) == len(handlers):
			kept = append(kept, g)
		case len(left) > 0:
			o, err := parseObject(g)
			if err != nil {
				kept = append(kept, g)
				continue
			}
			o.set("hooks", marshalArray(left))
			kept = append(kept, o.marshal())
		}
	}
	return kept, removed
}

// isOurs reports whether a hook command is rein's for agent: some rein
// (by its file name) with "hook AGENT", and rein's flags after it.
func isOurs(command string, agent hook.Agent) bool {
	command = strings.TrimSpace(command)
	marker := " hook " + string(agent)
	i := strings.LastIndex(command, marker)
	if i < 0 {
		return false
	}
	if tail := command[i+len(marker):]; tail != "" && !strings.HasPrefix(tail, " --") {
		return false
	}
	exe := strings.Trim(command[:i], `'"`)
	base := filepath.Base(exe)
	return base == "rein" || base == "rein.exe"
}

// A settings file as an ordered JSON object: install and uninstall change
// one key's value and keep every other byte of meaning, and the order the
// person wrote.

type object []member

type member struct {
	key   string
	value json.RawMessage
}

func readSettings(path string) (object, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return object{}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return object{}, nil
	}
	o, err := parseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object rein can edit (%w); fix it, or add the hook by hand (rein hook install --print)", path, err)
	}
	return o, nil
}

func writeSettings(path string, o object) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, o.marshal(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	tmp := path + ".rein-tmp"
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.WriteFile(tmp, out.Bytes(), mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := object{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// object returns the value of key as an object (empty when absent).
func (o object) object(key string) (object, error) {
	v, ok := o.get(key)
	if !ok || string(v) == "null" {
		return object{}, nil
	}
	sub, err := parseObject(v)
	if err != nil {
		return nil, fmt.Errorf("%s is not an object", key)
	}
	return sub, nil
}

// array returns the value of key as an array (empty when absent).
func (o object) array(key string) ([]json.RawMessage, error) {
	v, ok := o.get(key)
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, fmt.Errorf("%s is not a list", key)
	}
	return out, nil
}

func (o *object) set(key string, value json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key, value})
}

func (o *object) del(key string) {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func marshalArray(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}
