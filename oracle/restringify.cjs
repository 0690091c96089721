// Writes a composite again as JavaScript would, in another layout, with numbers that
// JavaScript prints in its own way, for scenetree's save-back tests.
// Usage: node restringify.cjs IN.composite OUT.composite (minified|tabs|numbers)
//   minified: JSON.stringify(composite)
//   tabs:     JSON.stringify(composite, null, '\t') plus a final newline
//   numbers:  two-space layout; every Transform's position scaled by 1e-7 and its scale by 1e21,
//             so they print as 0.0000012… and 1.2e+21 (serde_json prints 1.2e-6 and 1.2e21)
'use strict'
const fs = require('fs')
const [input, output, mode] = process.argv.slice(2)
const composite = JSON.parse(fs.readFileSync(input, 'utf8'))
let text
if (mode === 'minified') text = JSON.stringify(composite)
else if (mode === 'tabs') text = JSON.stringify(composite, null, '\t') + '\n'
else if (mode === 'numbers') {
  const transform = composite.components.find((c) => c.name === 'core::Transform')
  for (const entry of Object.values(transform.data)) {
    const t = entry.json
    if (!t) continue
    for (const k of ['x', 'y', 'z']) {
      if (t.position) t.position[k] = t.position[k] * 1e-7 + 1e-9
      if (t.scale) t.scale[k] = t.scale[k] * 1e21
    }
  }
  text = JSON.stringify(composite, null, 2)
} else throw new Error('usage: node restringify.cjs IN OUT (minified|tabs|numbers)')
fs.writeFileSync(output, text)
