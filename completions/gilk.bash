# bash completion for gilk's command line (the shell completes its own
# commands itself). Source it, or install into bash-completion's directory.
_gilk()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}

	case $prev in
	--kernel | --symbols | -x)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	-c)
		COMPREPLY=($(compgen -W "help disas blocks plan splice unsplice info events hist dump x set show source quit" -- "$cur"))
		return
		;;
	esac
	COMPREPLY=($(compgen -W "--kernel --symbols -c -x --help" -- "$cur"))
}
complete -F _gilk gilk
