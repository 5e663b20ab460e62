import Foundation

//@HELPER@

final class Node {
    var me: Node?
    init() { me = self }
}

func main() {
    //@CALL:nested@
    //@CALL:strings@
    //@CALL:scalars@
    //@CALL:oversize@
    //@CALL:unserializable@
    //@CALL:throws@
    //@CALL:secret@

    let group = DispatchGroup()
    for t in 0..<4 {
        group.enter()
        Thread {
            for i in 0..<25 {
                //@CALL:thread@
            }
            group.leave()
        }.start()
    }
    group.wait()
    print("program done")
}

main()
