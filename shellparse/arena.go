package shellparse

// arena hands out the commands, word lists and argv slices of an analysis
// from a few blocks instead of three allocations per simple command, and
// keeps the blocks for the next analysis of an Analyzer. Slices it hands
// out are capped at their length: appending to one copies it, never spills
// into a neighbour.
type arena struct {
	cmds  []Command
	words []Word
	strs  []string
	flags []Flag
}

// reset makes the blocks' memory available again. Everything handed out
// before is then reused: only an Analyzer, whose Script is valid until its
// next call, resets. The blocks are not cleared: a command is zeroed when
// handed out, and the lists handed out are written in full by their
// takers (a word list is handed out empty, an argv is filled word by word).
func (m *arena) reset() {
	m.cmds = m.cmds[:0]
	m.words = m.words[:0]
	m.strs = m.strs[:0]
	m.flags = m.flags[:0]
}

// grow is the capacity of a new block that must hold n more items.
func grow(old, n, least int) int {
	return max(2*old, n, least)
}

func (m *arena) command() *Command {
	if len(m.cmds) == cap(m.cmds) {
		m.cmds = make([]Command, 0, grow(cap(m.cmds), 1, 2))
	}
	m.cmds = append(m.cmds, Command{})
	return &m.cmds[len(m.cmds)-1]
}

// wordList returns an empty list with room for n words.
func (m *arena) wordList(n int) []Word {
	if cap(m.words)-len(m.words) < n {
		m.words = make([]Word, 0, grow(cap(m.words), n, 8))
	}
	i := len(m.words)
	m.words = m.words[:i+n]
	return m.words[i : i : i+n]
}

// strings returns a slice of n empty strings.
func (m *arena) strings(n int) []string {
	if cap(m.strs)-len(m.strs) < n {
		m.strs = make([]string, 0, grow(cap(m.strs), n, 8))
	}
	i := len(m.strs)
	m.strs = m.strs[:i+n]
	return m.strs[i : i+n : i+n]
}

// flagList returns an empty list with room for n flags.
func (m *arena) flagList(n int) []Flag {
	if cap(m.flags)-len(m.flags) < n {
		m.flags = make([]Flag, 0, grow(cap(m.flags), n, 8))
	}
	i := len(m.flags)
	m.flags = m.flags[:i+n]
	return m.flags[i : i : i+n]
}
