public import CrateDomain

/// `outputs.null.*`.
extension NullOutputPlugin {
    public static let registration = PluginRegistration.output("null", keys: [
        .init("render", default: "false",
              help: "true: discard as fast as the decoder runs (tests, benchmarks); false: keep time like a sound card"),
    ]) { s in
        let render = s.bool("render", default: false)
        return NullOutputPlugin(render: render.value, problem: render.problem)
    }
}
