package policy

import "github.com/reinsh/rein/engine/recipe"

// TestCase is one expectation from a recipe's tests.
type TestCase struct {
	Command string  `json:"command"`
	Want    Verdict `json:"want"`
}

// TestResult is a test case with the decision it got.
type TestResult struct {
	TestCase
	Got      Verdict   `json:"got"`
	Pass     bool      `json:"pass"`
	Decision *Decision `json:"decision"`
}

// Cases lists a recipe's tests in a stable order: allow, ask, deny.
func Cases(t recipe.Tests) []TestCase {
	var out []TestCase
	for _, c := range t.Allow {
		out = append(out, TestCase{c, Allow})
	}
	for _, c := range t.Ask {
		out = append(out, TestCase{c, Ask})
	}
	for _, c := range t.Deny {
		out = append(out, TestCase{c, Deny})
	}
	return out
}

// RunTests checks every test case of the policy's recipe.
func (p *Policy) RunTests() []TestResult {
	cases := Cases(p.recipe.Tests)
	out := make([]TestResult, 0, len(cases))
	for _, c := range cases {
		d := p.Check(c.Command)
		out = append(out, TestResult{TestCase: c, Got: d.Verdict, Pass: d.Verdict == c.Want, Decision: d})
	}
	return out
}
