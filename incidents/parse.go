// Package incidents holds the bundled incident files and reads incident
// files into engine specs, strictly: an unknown or mistyped key is an error
// naming the file, line and column.
package incidents

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"

	"inflight/engine"
)

// Limits on what a file may hold. A real incident is far inside them (the
// largest bundled file is under 8 KB, about 2,000 tokens, nested 5 deep,
// without a single alias); a hostile file passes one of them long before
// it costs time or memory, and is refused before it is parsed.
const (
	MaxFileBytes = 1 << 20 // 1 MiB
	MaxTokens    = 100_000 // YAML tokens, and values read counting each alias's expansion
	MaxDepth     = 16      // nesting of lists and maps
	MaxAliases   = 32      // *name references
)

// Parse reads one incident file. name is used in error positions. Every
// problem is reported, in file order, the same on every run.
func Parse(name string, data []byte) (*engine.Spec, error) { return parse(name, data, nil) }

// parse is Parse; then, when given, runs on a file without problems so
// far, with the reader that knows its positions, and may report more.
func parse(name string, data []byte, then func(*reader, *engine.Spec)) (spec *engine.Spec, err error) {
	defer func() {
		// the YAML library is third-party code fed user input: a panic in
		// it must still come out as a positioned error, not a stack trace
		if p := recover(); p != nil {
			spec, err = nil, Problems{{name, 1, 1, fmt.Sprintf("cannot read this file: %v", p)}}
		}
	}()
	if len(data) > MaxFileBytes {
		return nil, Problems{{name, 0, 0, fmt.Sprintf("%d bytes; an incident file may be at most %d (%d MiB)", len(data), MaxFileBytes, MaxFileBytes>>20)}}
	}
	tokens, prob := scan(name, data)
	if prob != nil {
		return nil, Problems{*prob}
	}
	af, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, yamlProblem(name, err)
	}
	r := &reader{name: name, pos: map[string]*token.Position{}, keys: map[string]*token.Position{}, bad: map[string]bool{}, badKnobs: map[string]bool{}, anchors: map[string]*ast.AnchorNode{}}
	var f file
	switch {
	case len(af.Docs) > 1:
		at := af.Docs[1].GetToken()
		if af.Docs[1].Start != nil {
			at = af.Docs[1].Start // the "---"
		}
		r.addAt(at.Position, "one incident per file: a second YAML document starts here")
		r.stopped = true
	case len(af.Docs) == 0 || af.Docs[0].Body == nil:
		r.addAt(nil, "empty file: an incident needs at least id, title and start")
		r.stopped = true
	default:
		r.collectAnchors(af.Docs[0].Body, 0)
		r.decode("$", af.Docs[0].Body, reflect.ValueOf(&f).Elem(), "", 0)
	}
	if !r.stopped {
		spec = r.build(&f)
		spec.IndexPins() // before the run check below, and before any share of it
		spec.FeaturedKnobs = r.featuredKnobs(spec, f.FeaturedKnobs)
		if len(r.probs) == 0 {
			r.bookmarkKeys(spec)
		}
		r.questions(spec, f.Exercises)
		r.doActions(spec, f.Exercises)
		spec.Properties = r.properties(f.Properties)
		if len(r.probs) == 0 {
			r.figureKeys(spec, &f)
		}
		if len(r.probs) == 0 && then != nil {
			then(r, spec)
		}
	}
	if len(r.probs) > 0 {
		sort.SliceStable(r.probs, func(i, j int) bool {
			a, b := r.probs[i], r.probs[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, r.probs
	}
	return guard(spec), nil
}

// scan tokenizes data, refusing it, before anything is parsed, if it holds
// more tokens, aliases or nesting than an incident needs: the YAML
// parser's time and memory grow with the square of the nesting, and
// decoding an alias expands it. Every step here is linear in the input,
// which the token pre-count keeps small.
func scan(name string, data []byte) (token.Tokens, *Problem) {
	if i := invalidUTF8(data); i >= 0 {
		line, col := lineCol(data, i)
		return nil, &Problem{name, line, col, "not UTF-8 text (an incident file is UTF-8 YAML)"}
	}
	// The YAML scanner tokenizes the whole input in one call, so its
	// token count can only be checked after the fact. Bound it first by
	// counting, in one pass with no allocation, the characters a token can
	// start or end at: every token needs one, so the scanner then makes
	// at most about twice as many tokens as this counts.
	marks := 0
	for i, c := range data {
		switch c {
		case ',', '[', ']', '{', '}', ':', '-', '&', '*', '!', '#', '|', '>', '?', '\'', '"', '\n':
			if marks++; marks > MaxTokens {
				line, col := lineCol(data, i)
				return nil, &Problem{name, line, col, fmt.Sprintf("more than %d YAML tokens (lines, keys, list items, quotes); an incident needs far fewer", MaxTokens)}
			}
		}
	}
	var s scanner.Scanner
	s.Init(string(data))
	var toks token.Tokens
	flow, aliases := 0, 0
	var block []int // columns of the open block collections, increasing
	lastLine := 0
	refuse := func(tk *token.Token, format string, args ...any) (token.Tokens, *Problem) {
		line, col := 1, 1
		if tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		return nil, &Problem{name, line, col, fmt.Sprintf(format, args...)}
	}
	for {
		sub, err := s.Scan()
		if err == io.EOF {
			break
		}
		for _, tk := range sub {
			if len(toks) >= MaxTokens {
				return refuse(tk, "more than %d YAML tokens; an incident needs far fewer", MaxTokens)
			}
			switch tk.Type {
			case token.SequenceStartType, token.MappingStartType:
				flow++
			case token.SequenceEndType, token.MappingEndType:
				if flow > 0 {
					flow--
				}
			case token.AliasType:
				if aliases++; aliases > MaxAliases {
					return refuse(tk, "more than %d aliases (*name); an incident needs none", MaxAliases)
				}
			case token.TagType:
				return refuse(tk, "tag %q: incident files take no YAML tags", tk.Value)
			case token.MergeKeyType:
				return refuse(tk, "merge keys (<<) are not supported in incident files")
			}
			// block nesting: a collection is open at each column, left to
			// right, where a line's first token, a "- " or a "? " sits
			if flow == 0 && tk.Position != nil && tk.Type != token.CommentType &&
				(tk.Position.Line != lastLine || tk.Type == token.SequenceEntryType || tk.Type == token.MappingKeyType) {
				c := tk.Position.Column
				for len(block) > 0 && block[len(block)-1] > c {
					block = block[:len(block)-1]
				}
				if len(block) == 0 || block[len(block)-1] < c {
					block = append(block, c)
				}
			}
			if tk.Position != nil && tk.Type != token.CommentType {
				lastLine = tk.Position.Line
			}
			if flow+len(block) > MaxDepth {
				return refuse(tk, "nested more than %d levels deep; an incident needs far fewer", MaxDepth)
			}
			toks.Add(tk)
		}
		if err != nil && len(sub) == 0 {
			break // no progress: the parser reports the invalid token
		}
	}
	return toks, nil
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func lineCol(b []byte, off int) (int, int) {
	line := 1 + strings.Count(string(b[:off]), "\n")
	col := off - strings.LastIndexByte(string(b[:off]), '\n')
	return line, col
}

func yamlProblem(name string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line, col := 1, 1
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			line, col = tk.Position.Line, tk.Position.Column
		}
		return Problems{{name, line, col, ye.GetMessage()}}
	}
	return Problems{{name, 1, 1, strings.SplitN(err.Error(), "\n", 2)[0]}}
}
