package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// The scripts ask the program itself for the words that may come next,
// through urfave/cli's --generate-bash-completion (App.EnableBashCompletion),
// so they always match the commands and flags of the binary on PATH.
var completionScripts = map[string]string{
	"bash": `# bash completion for PROG; load it with: source <(PROG completion bash)
_PROG_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
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
