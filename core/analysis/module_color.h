#pragma once

// The one colour rule of frames: the window's flame graph and stack chart, and the HTML
// flame graph, colour a frame by its module, so a user learns that teal is json and
// orange is their app wherever they look.

#include <cstdint>
#include <string>
#include <string_view>

namespace gilscope {

// "pkg" for .../site-packages/pkg/x.py, "json" for /usr/lib/python3.12/json/x.py, else
// the file's base name without .py.
std::string moduleOf(std::string_view file);

// Where a file's module comes from: an installed package (site-packages, dist-packages),
// the standard library (pythonX.Y), or neither (the user's own code).
enum class ModuleOrigin : uint8_t { User, Stdlib, ThirdParty };
struct ModuleLocation {
    ModuleOrigin origin = ModuleOrigin::User;
    std::string name; // moduleOf's result
    std::string root; // "/usr/lib/python3.12/json": the package's directory (or the file)
};
ModuleLocation locateModule(std::string_view file);

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb&) const = default;
};

// HSV (hue 0-359, saturation and value 0-255) to RGB, as QColor::fromHsv converts.
Rgb rgbFromHsv(int hue, int saturation, int value);

// A frame's fill: a hue from a hash of the module's name (stable across runs and
// builds), at a fixed saturation and value.
Rgb moduleColor(std::string_view file);
// The same for a module's name (moduleOf's result).
Rgb colorOfModule(std::string_view module);

// --native-stacks: a C function's fill, from its library's name. Native frames are a
// family of muted blue-greys, never the pastel of a Python module, so C code stands out.
Rgb colorOfLibrary(std::string_view library);
// A frame's fill: colorOfLibrary for a native frame (`file` its library's path),
// moduleColor for a Python one.
Rgb frameColor(std::string_view file, bool native);

// A comparison's colour for a change of `points` percentage points: from a neutral grey
// to red (grew) or blue (shrank), full strength at `fullChange` points.
Rgb changeColor(double points, double fullChange);

// "#rrggbb".
std::string cssHex(Rgb c);

} // namespace gilscope
