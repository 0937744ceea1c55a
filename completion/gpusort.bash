# SPDX-License-Identifier: MIT
# Bash completion for gpusort: its options (read from `gpusort --help`, so that the
# list follows the program), the words of options that take one, and file names.
# Installed as "gpusort" in bash-completion's completions directory.

_gpusort()
{
	local cur prev words cword split
	_init_completion -s || return

	case $prev in
	--type)
		COMPREPLY=($(compgen -W 'u32 i32 u64 i64 f32 f64 bytes' -- "$cur"))
		return ;;
	--algorithm)
		COMPREPLY=($(compgen -W 'bucket sample radix bitonic quick' -- "$cur"))
		return ;;
	--device)
		COMPREPLY=($(compgen -W 'auto cpu 0 1 2 3 4 5 6 7' -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W 'general-numeric human-numeric month numeric random version' -- "$cur"))
		return ;;
	--check)
		COMPREPLY=($(compgen -W 'diagnose-first quiet silent' -- "$cur"))
		return ;;
	--csv)
		COMPREPLY=($(compgen -W 'strict lenient' -- "$cur"))
		return ;;
	-T | --temporary-directory)
		_filedir -d
		return ;;
	-o | --output | --files0-from | --random-source | -k | --key)
		# -k takes a KEYDEF or, in binary mode, an input file
		_filedir
		return ;;
	--compress-program)
		COMPREPLY=($(compgen -c -- "$cur"))
		return ;;
	-S | --buffer-size | --gpu-memory | --parallel | --batch-size | --record-size | \
	--key-offset | --key-size | --key-field | -t | --field-separator)
		return ;;
	esac
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '$(_parse_help "$1")' -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	_filedir
} &&
	complete -F _gpusort gpusort
