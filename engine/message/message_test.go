package message

import "testing"

func TestRepair(t *testing.T) {
	msgs := []Message{
		Text(User, "q"),
		NewCall(Call{ID: "a", Name: "run_command", Arguments: `{}`}),
		NewCall(Call{ID: "b", Name: "run_command", Arguments: `{}`}),
		NewResult(Result{ToolCallID: "b", Output: "ok", Success: true}, "ok"),
		Text(User, "next"),
		NewCall(Call{ID: "c", Name: "glob", Arguments: `{}`}),
	}
	got := Repair(msgs)
	var kinds []string
	for _, m := range got {
		id := ""
		if c, err := m.Call(); err == nil {
			id = c.ID
		}
		if r, err := m.Result(); err == nil {
			id = r.ToolCallID
		}
		kinds = append(kinds, string(m.Kind)+":"+id)
	}
	want := "user: tool_call:a tool_call:b tool_result:b tool_result:a user: tool_call:c tool_result:c"
	if s := join(kinds); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
}

func join(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}
