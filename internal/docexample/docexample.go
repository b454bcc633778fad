// Package docexample reads the shell examples of a Markdown document so that
// tests can run them and check their output: every command a reader may
// paste is one a test has run.
//
// An example lives in a fenced block whose info string is "sh". A line
// starting with "$ " is a command (a trailing backslash continues it on the
// next line); the lines after it, up to the next command or the end of the
// block, are its expected output. In the expected output, a line "..."
// stands for any number of lines.
//
// A whole program lives in a fenced block whose info string names its
// language ("go", "js"); a block with the info string "output" right after
// it (only blank lines between them) is what it prints, read as a
// command's expected output is.
package docexample

import "strings"

// Example is one command of a document and the output it shows.
type Example struct {
	Line    int    // line of the command in the document, from 1
	Command string // the command, continuation lines joined
	Output  []string
}

// Parse returns the examples of md in document order.
func Parse(md string) []Example {
	var (
		out     []Example
		inBlock bool
		cur     *Example
		cont    bool // the previous command line ended in a backslash
	)
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !inBlock && trimmed == "```sh":
			inBlock = true
		case inBlock && trimmed == "```":
			inBlock, cur, cont = false, nil, false
		case !inBlock:
		case cont:
			cur.Command += " " + strings.TrimSuffix(trimmed, `\`)
			cont = strings.HasSuffix(trimmed, `\`)
		case strings.HasPrefix(line, "$ "):
			out = append(out, Example{Line: i + 1, Command: strings.TrimSuffix(line[2:], `\`)})
			cur = &out[len(out)-1]
			cont = strings.HasSuffix(line, `\`)
		case cur != nil:
			cur.Output = append(cur.Output, strings.TrimRight(line, " \t"))
		}
	}
	for i := range out {
		out[i].Command = strings.Join(strings.Fields(out[i].Command), " ")
		for len(out[i].Output) > 0 && out[i].Output[len(out[i].Output)-1] == "" {
			out[i].Output = out[i].Output[:len(out[i].Output)-1]
		}
	}
	return out
}

// Match reports whether got matches the expected lines want, where a want
// line "..." matches any run of lines, a want line ending in "..." matches
// a line with that prefix, trailing spaces are ignored, and trailing blank
// lines of got are too.
func Match(want []string, got string) bool {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	return match(want, lines)
}

func match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if match(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatch(want[0], got[0]) && match(want[1:], got[1:])
}

func lineMatch(want, got string) bool {
	if prefix, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(got, prefix)
	}
	return got == want
}

// Program is a fenced block of source code in a document, and the output
// the document shows for it.
type Program struct {
	Line   int    // line of the block's opening fence, from 1
	Source string // the block's lines
	// Output holds the lines of the block that follows it when that
	// block's info string is "output" (only blank lines between them); nil
	// when the program shows none.
	Output []string
}

// Programs returns the blocks of md whose info string is lang (for
// example "go" or "js"), in document order, each with the output block
// that follows it.
func Programs(md, lang string) []Program {
	var (
		out      []Program
		info     string // of the open block; "" outside one
		open     bool
		start    int
		body     []string
		lastProg = -1 // index in out of the program that closed last, while only blank lines follow it
	)
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !open && strings.HasPrefix(trimmed, "```"):
			open, info, start, body = true, strings.TrimPrefix(trimmed, "```"), i+1, nil
		case open && trimmed == "```":
			open = false
			switch {
			case info == lang:
				out = append(out, Program{Line: start, Source: strings.Join(body, "\n") + "\n"})
				lastProg = len(out) - 1
				continue
			case info == "output" && lastProg >= 0:
				out[lastProg].Output = append([]string{}, body...)
			}
			lastProg = -1
		case open:
			body = append(body, line)
		case trimmed != "":
			lastProg = -1
		}
	}
	return out
}
