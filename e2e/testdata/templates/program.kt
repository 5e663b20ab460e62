import kotlin.concurrent.thread

//@HELPER@

@Throws(java.io.IOException::class)
fun readConfig(): String = throw java.io.IOException("no config file")

class Node {
    val me: Node = this
}

fun main() {
    //@CALL:nested@
    //@CALL:strings@
    //@CALL:scalars@
    //@CALL:oversize@
    //@CALL:unserializable@
    //@CALL:throws@
    //@CALL:secret@

    val workers = (0 until 4).map { t ->
        thread {
            for (i in 0 until 25) {
                //@CALL:thread@
            }
        }
    }
    workers.forEach { it.join() }
    println("program done")
}
