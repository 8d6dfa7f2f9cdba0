# Sourced by the scripts that debootstrap a Debian system.
# The machine's configured Debian mirror: deb822 .sources first, then sources.list.
mirror_from_config() {
    local uri
    uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '{print $2}' | grep -v -- '-security' | head -n1 || true)
    if [[ -z "$uri" ]]; then
        uri=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null |
            awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' |
            grep -v -- '-security' | head -n1 || true)
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}
