// What every page Kiln writes looks like (tune report, tune validate -o): the body, headings
// and the summary list; each page adds the style of its own tables.
#pragma once

namespace kiln::cli::report {

inline constexpr char kPageStyle[] = R"(
body { font-family: sans-serif; margin: 24px; color: #1a1a1a; background: #ffffff; }
h1 { font-size: 22px; margin: 0 0 8px 0; }
h2 { font-size: 17px; margin: 28px 0 8px 0; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.summary dt { color: #555555; }
dl.summary dd { margin: 0; }
)";

}  // namespace kiln::cli::report
