package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestLook(t *testing.T) {
	if os.Getenv("LOOK") == "" {
		t.Skip()
	}
	var w, h int
	fmt.Sscanf(os.Getenv("LOOK"), "%dx%d", &w, &h)
	m := newTest(t, Options{}, w, h)
	m = press(m, strings.Fields(os.Getenv("KEYS"))...)
	fmt.Println(m.View())
}
