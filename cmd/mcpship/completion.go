package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpship/mcpship/installer"
)

// completionFlag is the last argument of a command line the scripts ask
// for completions with.
const completionFlag = "--generate-bash-completion"

// shells are the shells "completion" writes a script for.
var shells = []string{"bash", "zsh", "fish", "powershell"}

// flagValues are the values a flag of this name takes, offered after it.
func flagValues(name string) []string {
	switch name {
	case "client":
		var names []string
		for _, a := range installer.Assistants() {
			names = append(names, a.Name)
		}
		return names
	case "scope":
		return []string{string(installer.ScopeProject), string(installer.ScopeUser), string(installer.ScopeLocal)}
	case "log-level":
		return []string{"debug", "info", "warn", "error"}
	}
	return nil
}

// completing returns the words of args, a command line that asks for
// completions, to complete: all but the program's name and the last
// argument. ok is false when args does not ask, or when it must not be
// run: after a "--" come the words of a server's command, which mcpship
// knows nothing of, so it offers nothing and runs nothing. A "--" that
// is the word being completed is the start of a long flag.
func completing(args []string) (words []string, ok bool) {
	n := len(args)
	if n < 2 || args[n-1] != completionFlag {
		return nil, false
	}
	words = args[1 : n-1]
	if i := slices.Index(words, "--"); i >= 0 && i < len(words)-1 {
		return words, false
	}
	return words, true
}

// setCompletion makes every command of app offer, for words: the values
// of the flag before the cursor (client names after --client), the
// command's flags after a word that begins with "-" (all of them after
// "--"), its subcommands, and the shells after "completion"; never
// "help" and its alias "h" under a command.
func setCompletion(app *cli.App, words []string) {
	last := ""
	if len(words) > 0 {
		last = words[len(words)-1]
	}
	app.BashComplete = func(c *cli.Context) {
		if strings.HasPrefix(last, "-") {
			offerFlags(c.App.Writer, app.VisibleFlags(), last, words)
			return
		}
		for _, cmd := range app.VisibleCommands() {
			fmt.Fprintln(c.App.Writer, cmd.Name)
		}
	}
	var walk func(cmds []*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, cmd := range cmds {
			cmd := cmd
			cmd.BashComplete = func(c *cli.Context) { completeCommand(c.App.Writer, cmd, last, words) }
			walk(cmd.Subcommands)
		}
	}
	walk(app.Commands)
}

func completeCommand(w io.Writer, cmd *cli.Command, last string, words []string) {
	flags := cmd.VisibleFlags() // --help among them
	for _, f := range flags {
		if slices.Contains(f.Names(), strings.TrimLeft(last, "-")) && strings.HasPrefix(last, "-") {
			if tv, ok := f.(cli.DocGenerationFlag); ok && tv.TakesValue() {
				for _, v := range flagValues(f.Names()[0]) {
					fmt.Fprintln(w, v)
				}
				return // nothing known: the shell completes file names
			}
		}
	}
	switch {
	case strings.HasPrefix(last, "-"):
		offerFlags(w, flags, last, words)
	case cmd.Name == "completion":
		for _, sh := range shells {
			fmt.Fprintln(w, sh)
		}
	default:
		for _, sub := range cmd.Subcommands {
			if !sub.Hidden && sub.Name != "help" {
				fmt.Fprintln(w, sub.Name)
			}
		}
	}
}

// offerFlags prints the flags whose names begin as last does, but for
// "--" alone, after which every long flag is offered. A flag that cannot
// be repeated is offered once.
func offerFlags(w io.Writer, flags []cli.Flag, last string, words []string) {
	prefix := strings.TrimLeft(last, "-")
	for _, f := range flags {
		if given(f, words[:len(words)-1]) && !repeatable(f) {
			continue
		}
		for _, n := range f.Names() {
			dash := "--"
			if len(n) == 1 {
				if last != "-" {
					continue
				}
				dash = "-"
			}
			if strings.HasPrefix(n, prefix) && dash+n != last {
				fmt.Fprintln(w, dash+n)
			}
		}
	}
}

func given(f cli.Flag, words []string) bool {
	for _, w := range words {
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if strings.HasPrefix(w, "-") && slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

func repeatable(f cli.Flag) bool {
	if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() {
		return true
	}
	_, generic := f.(*cli.GenericFlag)
	return generic
}

// The scripts ask the program itself for the words that may come next,
// through urfave/cli's --generate-bash-completion (App.EnableBashCompletion),
// so they always match the commands and flags of the binary on PATH.
// After a "--" come the words of a server's command: the scripts leave
// them to the shell's own completion of file names (a "--" being typed is
// the start of a long flag).
var completionScripts = map[string]string{
	"bash": `# bash completion for PROG; load it with: source <(PROG completion bash)
_PROG_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  COMPREPLY=()
  local w; for w in "${args[@]}"; do [[ "$w" == "--" ]] && return; done
  [[ "$cur" == -* ]] && args+=("$cur")
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${args[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _PROG_complete PROG
`,
	"zsh": `#compdef PROG
# zsh completion for PROG; load it with: source <(PROG completion zsh)
_PROG() {
  local -a opts
  local cur=${words[-1]}
  if (( ${words[(Ie)--]} > 0 && ${words[(Ie)--]} < ${#words} )); then
    _files
    return
  fi
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} $cur --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    compadd -- $opts
  else
    _files
  fi
}
compdef _PROG PROG
`,
	"fish": `# fish completion for PROG; load it with: PROG completion fish | source
function __PROG_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    if contains -- -- $words[2..-1]
        __fish_complete_path $cur
        return
    end
    if string match -q -- '-*' $cur
        set -a words $cur
    end
    $words[1] $words[2..-1] --generate-bash-completion 2>/dev/null
end
complete -c PROG -f -a '(__PROG_complete)'
`,
	"powershell": `# PowerShell completion for PROG; load it with: PROG completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName PROG -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
    $prog = $words[0]
    $rest = @($words | Select-Object -Skip 1)
    if ($wordToComplete -ne '' -and $rest.Count -gt 0) { $rest = @($rest | Select-Object -SkipLast 1) }
    if ($rest -contains '--') { return }
    if ($wordToComplete -like '-*') { $rest += $wordToComplete }
    & $prog @rest --generate-bash-completion 2>$null | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`,
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh, fish or powershell",
		ArgsUsage: "SHELL",
		Description: "Completes commands and flags by asking mcpship itself. To load it:\n" +
			"  bash:       source <(mcpship completion bash)         (or save it in /etc/bash_completion.d/mcpship)\n" +
			"  zsh:        source <(mcpship completion zsh)\n" +
			"  fish:       mcpship completion fish | source          (or save it in ~/.config/fish/completions/mcpship.fish)\n" +
			"  powershell: mcpship completion powershell | Out-String | Invoke-Expression",
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one SHELL: bash, zsh, fish or powershell")
			}
			script, ok := completionScripts[c.Args().First()]
			if !ok {
				return usagef("completion: unknown shell %q; want bash, zsh, fish or powershell", c.Args().First())
			}
			_, err := fmt.Fprint(c.App.Writer, strings.ReplaceAll(script, "PROG", c.App.Name))
			return err
		},
	}
}
