//go:build !unix

package tools

// syscallNoFollow: the platform has no O_NOFOLLOW; the check that the
// opened file is the one resolved stands alone.
const syscallNoFollow = 0
