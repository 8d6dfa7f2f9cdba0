// A small C++ library for the --native-stacks tests, compiled by the test itself (with
// and without frame pointers): C++ frames between two runs of Python frames, with
// names that only demangling makes readable.
namespace demo {

template <typename T>
struct Visitor {
    using Callback = int (*)(int);
    __attribute__((noinline)) static T visit(Callback cb, int n) {
        T sum = 0;
        for (int i = 0; i < n; ++i)
            sum += cb(i);
        asm volatile("" ::: "memory"); // no tail call: the frame stays
        return sum;
    }
};

__attribute__((noinline)) int runTwice(int (*cb)(int), int n) {
    int r = Visitor<int>::visit(cb, n);
    asm volatile("" ::: "memory");
    r += Visitor<int>::visit(cb, n);
    asm volatile("" ::: "memory");
    return r;
}

} // namespace demo

extern "C" int demo_run(int (*cb)(int), int n) {
    int r = demo::runTwice(cb, n);
    asm volatile("" ::: "memory");
    return r;
}

// C work that takes a while (a few milliseconds) before one call back into Python: a
// stack that stays put long enough for --native-stacks without pausing to pair it.
namespace demo {
__attribute__((noinline)) unsigned long spinFor(unsigned long rounds) {
    unsigned long x = 1;
    for (unsigned long i = 0; i < rounds; ++i)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    asm volatile("" ::: "memory");
    return x;
}
} // namespace demo

extern "C" unsigned long demo_spin(int (*cb)(int), unsigned long rounds) {
    unsigned long x = demo::spinFor(rounds);
    asm volatile("" ::: "memory");
    return x + static_cast<unsigned long>(cb(1));
}

// A native recursion `depth` deep that then calls back into Python: the benchmark's
// 30 Python frames over 20 native ones.
namespace demo {
__attribute__((noinline)) int nest(int depth, int (*cb)(int)) {
    if (depth <= 0) return cb(depth);
    int r = nest(depth - 1, cb);
    asm volatile("" ::: "memory");
    return r + 1;
}
} // namespace demo

extern "C" int demo_nest(int depth, int (*cb)(int)) {
    int r = demo::nest(depth, cb);
    asm volatile("" ::: "memory");
    return r;
}
