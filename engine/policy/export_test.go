package policy

import "github.com/reinsh/rein/shellparse"

// Unguarded returns the policy deciding without its rule shortcuts: every
// each-rule runs in full on every command.
func (p *Policy) Unguarded() *Policy {
	c := *p
	c.unguarded = true
	return &c
}

// FoldingCase returns the policy matching secret paths whatever their
// letters' case, as it does on macOS and Windows.
func (p *Policy) FoldingCase() *Policy {
	c := *p
	c.secret = c.secret.folded()
	c.cwdClear = c.secret.clearBelow(c.cwd)
	return &c
}

// WindowsNames returns the policy reading secret paths as Windows opens
// them (streams, trailing dots and spaces), case folded.
func (p *Policy) WindowsNames() *Policy {
	c := p.FoldingCase()
	c.secret.win = true
	c.cwdClear = c.secret.clearBelow(c.cwd)
	return c
}

// DecideScript decides an analysed script (tests compare it with Check).
func (p *Policy) DecideScript(s *shellparse.Script) *Decision { return p.decideScript(s) }
