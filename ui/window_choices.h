#pragma once

namespace gilscope::ui {

// The answers of the window's questions (WindowPrompts), apart so the plain dialogs
// (window_dialogs.h) can return them without knowing the prompts.
enum class MessageKind { Info, Error };
// What to do with a recording that was neither saved nor exported.
enum class UnsavedChoice { SaveBin, Export, Discard, Cancel };
// What to do with a profile just exported.
enum class ExportChoice { OpenInProfiler, ShowInFolder, CopyPath, Close };

} // namespace gilscope::ui
