package resident

import (
	"os"
	"testing"
)

func BenchmarkSocket(b *testing.B) {
	exe, _ := os.Executable()
	for b.Loop() {
		if _, err := Socket(exe); err != nil {
			b.Fatal(err)
		}
	}
}
