package tui

// Share codes a presenter could have on stage: the stage refuses a
// received state whose code does not parse.
const (
	codeA = "thursday@1#1.00000000"
	codeB = "thursday@1#2.00000000"
)
