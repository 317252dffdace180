// The client's code is generated at build time by swift-openapi-generator's
// build plugin (Types.swift and Client.swift, from openapi.yaml with
// openapi-generator-config.yaml). This file exists so that SwiftPM sees a
// source in the target and runs the plugin: a target of only YAML files is
// skipped.
