package sandbox

import "time"

func sleepBriefly() { time.Sleep(10 * time.Millisecond) }
