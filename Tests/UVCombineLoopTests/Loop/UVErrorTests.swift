import CLibUV
import Testing
import UVCombineLoop

@Suite("UVError")
struct UVErrorTests {
    @Test func carriesLibuvNameAndMessage() {
        let error = UVError(code: UV_EBUSY.rawValue)
        #expect(error.name == "EBUSY")
        #expect(error.message == "resource busy or locked")
        #expect(error.description == "UV_EBUSY: resource busy or locked")
        #expect(error == .busy)
        #expect(UVError.invalidArgument.name == "EINVAL")
    }
}
