# shellcheck shell=bash
# apt_mirror [CODENAME]: the Debian mirror this machine's apt is configured
# with, for scripts that need the archive itself (scripts/vmtest's backports,
# scripts/fresh-debian's debootstrap): the first enabled source, in one-line
# (/etc/apt/sources.list, sources.list.d/*.list) or deb822 (*.sources) format,
# that serves CODENAME's main suite (default bookworm; not -security or
# -updates). Prints nothing and fails when there is none.
apt_mirror() {
	local codename=${1:-bookworm} f uri
	uri=$({
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			# deb [OPTIONS] URI SUITE COMPONENT...
			awk '$1 == "deb" {
				i = 2
				if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if (i + 1 <= NF) print $i, $(i + 1)
			}' "$f"
		done
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			# Stanzas end at a blank line; Types, URIs and Suites may hold several values.
			awk 'function flush() {
					if (deb && on) for (u in uris) for (s in suites) print uris[u], suites[s]
					deb = 0; on = 1; split("", uris); split("", suites)
				}
				BEGIN { on = 1 }
				/^[ \t]*$/ { flush(); next }
				/^#/ { next }
				tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				tolower($1) == "uris:" { for (i = 2; i <= NF; i++) uris[i] = $i }
				tolower($1) == "suites:" { for (i = 2; i <= NF; i++) suites[i] = $i }
				tolower($1) == "enabled:" { on = tolower($2) != "no" }
				END { flush() }' "$f"
		done
	} | awk -v c="$codename" '$2 == c { print $1; exit }')
	[ -n "$uri" ] || return 1
	printf '%s\n' "${uri%/}"
}
