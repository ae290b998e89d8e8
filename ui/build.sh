#!/bin/sh
# Vendor the web UI's JavaScript libraries: install exactly what package-lock.json pins
# (npm ci) and copy their built, minified files and licences into api/static/vendor,
# which is committed so the package serves the UI offline. Run by `make ui`.
set -eu
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
out=../api/static/vendor
rm -rf "$out"
mkdir -p "$out"
copy() { # package, built file, vendored name
    # Source maps are not shipped, so their comment goes too.
    sed '/^\/\/# sourceMappingURL=/d' "node_modules/$1/$2" >"$out/$3.min.js"
    cp "node_modules/$1/LICENSE" "$out/$3.LICENSE"
}
copy cytoscape dist/cytoscape.min.js cytoscape
copy @dagrejs/dagre dist/dagre.min.js dagre
copy cytoscape-dagre dist/cytoscape-dagre.min.js cytoscape-dagre
cp node_modules/@dagrejs/dagre/dist/dagre.min.js.LEGAL.txt "$out/dagre.LEGAL.txt"
# dagre and cytoscape-dagre bundle @dagrejs/graphlib.
cp node_modules/@dagrejs/graphlib/LICENSE "$out/graphlib.LICENSE"
node -e 'const l=require("./package-lock.json").packages;for(const[k,v]of Object.entries(l))if(k)console.log(k.replace("node_modules/",""),v.version)' >"$out/VERSIONS"
echo "vendored into api/static/vendor:"; cat "$out/VERSIONS"
