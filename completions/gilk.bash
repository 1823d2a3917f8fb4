# bash completion for gilk's command line, written by "gilk --completion bash"
# from gilk's command table: do not edit ("make completions" writes it).
_gilk()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}

	case $prev in
	--kernel | --symbols | -x | --check | --index | -o | --source)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--completion)
		COMPREPLY=($(compgen -W "bash zsh" -- "$cur"))
		return
		;;
	-c)
		COMPREPLY=($(compgen -W "help disas blocks plan splice coverage unsplice latency info events hist dump x list print ptype whatis set show source record shell complete quit" -- "$cur"))
		return
		;;
	esac
	COMPREPLY=($(compgen -W "--kernel --symbols -c -x -batch -nx --check --completion --index -o --source --version --help" -- "$cur"))
}
complete -F _gilk gilk
