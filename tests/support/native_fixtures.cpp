#include "native_fixtures.hpp"

#include <unistd.h>

#include <stdexcept>

#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::test {

namespace stdfs = std::filesystem;

namespace {

std::string search_path() {
    return util::environment_lookup(util::current_environment(), "PATH").value_or("/usr/bin:/bin");
}

bool have(std::string_view program) {
    return util::find_program(program, search_path()).has_value();
}

std::string mingw_gcc(int bits) {
    return bits == 32 ? "i686-w64-mingw32-gcc" : "x86_64-w64-mingw32-gcc";
}

}  // namespace

void run_build_tool(const std::vector<std::string>& argv, const stdfs::path& cwd) {
    util::ProcessRequest request;
    request.argv = argv;
    request.working_directory = cwd;
    request.timeout = std::chrono::milliseconds(120'000);
    auto result = util::run_process(request);
    if (!result) throw std::runtime_error(argv[0] + ": " + result.error().message);
    if (!result->succeeded()) {
        std::string cmd;
        for (const auto& a : argv)
            cmd += a + " ";
        throw std::runtime_error("build failed: " + cmd + "\n" + result->err + result->out);
    }
}

namespace {

// C source for a library exporting <stem>_fn that calls the <stem>_fn of each dependency, so
// the linker records every one of them.
std::string chain_source(const stdfs::path& out, const std::vector<stdfs::path>& deps,
                         const std::string& import_attr, const std::string& export_attr) {
    std::string src;
    for (const auto& dep : deps)
        src += import_attr + "int " + native_stem(dep) + "_fn(void);\n";
    src += export_attr + "int " + native_stem(out) + "_fn(void) { return 1";
    for (const auto& dep : deps)
        src += " + " + native_stem(dep) + "_fn()";
    return src + "; }\n";
}

}  // namespace

std::string native_stem(const stdfs::path& file) {
    std::string name = file.filename().string();
    for (std::string_view ext : {".dll", ".DLL", ".exe", ".pyd"}) {
        if (name.size() > ext.size() && name.ends_with(ext)) {
            name.resize(name.size() - ext.size());
            break;
        }
    }
    if (auto so = name.find(".so"); so != std::string::npos) name.resize(so);
    if (name.starts_with("lib") && file.filename().string().find(".so") != std::string::npos)
        name = name.substr(3);
    for (char& c : name) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!ok) c = '_';
    }
    return name;
}

bool have_mingw(int bits) {
    return have(mingw_gcc(bits));
}

bool have_delay_load_tools() {
    return have_mingw(64) && have("llvm-dlltool-14") && have("lld-link-14");
}

stdfs::path build_pe(const PeBuild& b) {
    stdfs::create_directories(b.out.parent_path());
    stdfs::path work = b.out.parent_path() / (".build-" + b.out.filename().string());
    stdfs::create_directories(work);
    stdfs::path source = work / "src.c";
    aitk::fs::write_file_atomic(source, b.c_source);
    if (b.delay_imports.empty()) {
        std::vector<std::string> argv = {mingw_gcc(b.bits), "-O1"};
        if (!b.executable) argv.push_back("-shared");
        argv.insert(argv.end(), {"-o", b.out.string(), source.string()});
        for (const auto& dll : b.imports)
            argv.push_back(dll.string());
        run_build_tool(argv);
    } else {
        if (b.bits != 64) throw std::runtime_error("delay-load fixtures are 64-bit only");
        // lld-link fills the delay-import directory; GNU ld does not. The image is never run,
        // so the delay-load helper is a stub and no C runtime is linked.
        stdfs::path object = work / "src.o";
        run_build_tool({mingw_gcc(64), "-O1", "-c", "-o", object.string(), source.string()});
        std::vector<std::string> argv = {"lld-link-14", "/noentry", "/nodefaultlib",
                                         "/out:" + b.out.string(), object.string()};
        if (!b.executable)
            argv.insert(argv.begin() + 1, "/dll");
        else
            argv.push_back("/subsystem:console");
        stdfs::path stub = work / "delay_helper.c";
        aitk::fs::write_file_atomic(stub,
                                    "void* __delayLoadHelper2(const void* d, void** slot)"
                                    " { (void)d; return *slot; }\n");
        stdfs::path stub_o = work / "delay_helper.o";
        run_build_tool({mingw_gcc(64), "-O1", "-c", "-o", stub_o.string(), stub.string()});
        argv.push_back(stub_o.string());
        auto import_lib = [&](const std::string& dll) {
            stdfs::path def = work / (dll + ".def");
            aitk::fs::write_file_atomic(
                def, "LIBRARY " + dll + "\nEXPORTS\n" + native_stem(dll) + "_fn\n");
            stdfs::path lib = work / (dll + ".lib");
            run_build_tool(
                {"llvm-dlltool-14", "-m", "i386:x86-64", "-d", def.string(), "-l", lib.string()});
            return lib;
        };
        for (const auto& dll : b.imports)
            argv.push_back(import_lib(dll.filename().string()).string());
        for (const auto& dll : b.delay_imports) {
            argv.push_back(import_lib(dll).string());
            argv.push_back("/delayload:" + dll);
        }
        if (b.executable) argv.push_back("/entry:main");
        run_build_tool(argv);
    }
    stdfs::remove_all(work);
    return b.out;
}

stdfs::path build_chain_dll(const stdfs::path& out, const std::vector<stdfs::path>& imports,
                            int bits) {
    PeBuild b;
    b.out = out;
    b.c_source = chain_source(out, imports, "__declspec(dllimport) ", "__declspec(dllexport) ");
    b.imports = imports;
    b.bits = bits;
    return build_pe(b);
}

bool have_gcc_m32() {
    static const bool ok = [] {
        if (!have("gcc")) return false;
        stdfs::path dir = stdfs::temp_directory_path() / ("aitk-m32-" + std::to_string(::getpid()));
        stdfs::create_directories(dir);
        aitk::fs::write_file_atomic(dir / "a.c", "int f(void) { return 1; }\n");
        bool built = true;
        try {
            run_build_tool({"gcc", "-m32", "-shared", "-fPIC", "-o", (dir / "a.so").string(),
                            (dir / "a.c").string()});
        } catch (const std::exception&) {
            built = false;
        }
        stdfs::remove_all(dir);
        return built;
    }();
    return ok;
}

stdfs::path build_elf(const ElfBuild& b) {
    stdfs::create_directories(b.out.parent_path());
    stdfs::path source = b.out.parent_path() / (".src-" + b.out.filename().string() + ".c");
    aitk::fs::write_file_atomic(source, b.c_source);
    std::vector<std::string> argv = {"gcc", "-O1", "-fPIC", "-Wl,--no-as-needed"};
    if (b.m32) argv.push_back("-m32");
    if (!b.executable) argv.push_back("-shared");
    if (!b.soname.empty()) argv.push_back("-Wl,-soname," + b.soname);
    if (!b.rpath.empty())
        argv.insert(argv.end(), {"-Wl,--disable-new-dtags", "-Wl,-rpath," + b.rpath});
    if (!b.runpath.empty())
        argv.insert(argv.end(), {"-Wl,--enable-new-dtags", "-Wl,-rpath," + b.runpath});
    argv.insert(argv.end(), {"-o", b.out.string(), source.string()});
    // -l:NAME records NAME (or the object's SONAME) in DT_NEEDED; a path would be recorded as is.
    for (const auto& so : b.needed)
        argv.insert(argv.end(), {"-L" + so.parent_path().string(), "-l:" + so.filename().string()});
    run_build_tool(argv);
    stdfs::remove(source);
    return b.out;
}

stdfs::path build_chain_so(const stdfs::path& out, const std::vector<stdfs::path>& needed,
                           const std::string& soname, const std::string& runpath,
                           const std::string& rpath) {
    ElfBuild b;
    b.out = out;
    b.c_source = chain_source(out, needed, "", "");
    b.needed = needed;
    b.soname = soname;
    b.runpath = runpath;
    b.rpath = rpath;
    return build_elf(b);
}

}  // namespace aitk::test
