# apt.sh: sourced by scripts/setup.sh and scripts/test-deps.sh (not run by
# itself). apt_install PKG... installs the Debian packages among PKG that
# are not installed yet (apt-get, as root or through sudo), or does nothing
# when all are; SKIP_APT=1 skips it. The caller defines say and die, and
# may set the array APT_FLAGS to extra apt-get install flags.

# apt_missing prints the packages among its arguments that dpkg does not
# list as installed.
apt_missing() {
	local p
	for p in "$@"; do
		if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) != "install ok installed" ]]; then
			printf '%s\n' "$p"
		fi
	done
}

apt_install() {
	if [[ ${SKIP_APT:-} == 1 ]]; then
		say "SKIP_APT=1: not checking the Debian packages $*"
		return 0
	fi
	command -v dpkg-query >/dev/null || die "not a Debian system: install $* yourself (or set SKIP_APT=1)"
	local missing sudo=()
	mapfile -t missing < <(apt_missing "$@")
	((${#missing[@]})) || return 0
	if ((EUID != 0)); then
		command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
		sudo=(sudo)
	fi
	say "installing ${missing[*]}"
	"${sudo[@]}" apt-get update
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y ${APT_FLAGS[@]+"${APT_FLAGS[@]}"} "${missing[@]}"
	mapfile -t missing < <(apt_missing "$@")
	((${#missing[@]} == 0)) || die "still not installed: ${missing[*]}"
}
