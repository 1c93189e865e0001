package policy

// Unguarded returns the policy deciding without its rule shortcuts: every
// each-rule runs in full on every command.
func (p *Policy) Unguarded() *Policy {
	c := *p
	c.unguarded = true
	return &c
}
