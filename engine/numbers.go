package engine

import "fmt"

// Count is n for people: 1406, 372k, 50M.
func Count(n int64) string {
	switch {
	case n < 100_000:
		return fmt.Sprint(n)
	case n < 10_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n < 1_000_000_000:
		return fmt.Sprintf("%dM", (n+500_000)/1_000_000)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
}

// Bytes is a memory size for people: 512 MB, 1.5 GB.
func Bytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
	if n < 1<<19 { // "0 MB" says nothing
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%d MB", (n+1<<19)>>20)
}
