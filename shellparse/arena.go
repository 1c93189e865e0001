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
func (m *arena) wordList(n int) []Word { return carve(&m.words, n)[:0] }

// strings returns a slice of n empty strings.
func (m *arena) strings(n int) []string { return carve(&m.strs, n) }

// flagList returns an empty list with room for n flags.
func (m *arena) flagList(n int) []Flag { return carve(&m.flags, n)[:0] }

// carve hands out the next n items of a block, capped at n, starting a
// larger block when this one has no room.
func carve[T any](block *[]T, n int) []T {
	if cap(*block)-len(*block) < n {
		*block = make([]T, 0, grow(cap(*block), n, 8))
	}
	i := len(*block)
	*block = (*block)[:i+n]
	return (*block)[i : i+n : i+n]
}
